# `cmake --install build --prefix P`: the program, its man page and shell
# completions, and the user scripts with the reference data they read.
# Nothing here builds anything; tests/test_install.sh checks the result.
include(GNUInstallDirs)

set(tplan_share ${CMAKE_INSTALL_DATADIR}/tplan)

install(TARGETS tplan RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_SOURCE_DIR}/docs/tplan.1
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_SOURCE_DIR}/scripts/completion/tplan.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME tplan)
install(FILES ${CMAKE_SOURCE_DIR}/scripts/completion/_tplan
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)

# The script helpers are compiled into the binary; this copy is for
# reading and for reuse outside tplan.
install(FILES ${CMAKE_SOURCE_DIR}/lua/helpers.lua
        DESTINATION ${tplan_share}/lua)

# User scripts: every sweep script (scripts/*.lua) and the accuracy and
# calibration reports. Build, test, setup, benchmark and fuzz plumbing
# stays in the checkout.
file(GLOB tplan_sweep_scripts ${CMAKE_SOURCE_DIR}/scripts/*.lua)
install(FILES ${tplan_sweep_scripts} DESTINATION ${tplan_share}/scripts)
install(PROGRAMS
        ${CMAKE_SOURCE_DIR}/scripts/accuracy.sh
        ${CMAKE_SOURCE_DIR}/scripts/accuracy_llmfoundry.sh
        ${CMAKE_SOURCE_DIR}/scripts/accuracy_megatron.sh
        ${CMAKE_SOURCE_DIR}/scripts/accuracy_table2.sh
        ${CMAKE_SOURCE_DIR}/scripts/accuracy_nemo.sh
        ${CMAKE_SOURCE_DIR}/scripts/accuracy_bert.sh
        ${CMAKE_SOURCE_DIR}/scripts/accuracy_korthikanti.sh
        ${CMAKE_SOURCE_DIR}/scripts/accuracy_gpu.sh
        ${CMAKE_SOURCE_DIR}/scripts/accuracy_frontier.sh
        ${CMAKE_SOURCE_DIR}/scripts/calibrate_llmfoundry.sh
        DESTINATION ${tplan_share}/scripts)
# what they source
install(FILES ${CMAKE_SOURCE_DIR}/scripts/report_common.sh
        DESTINATION ${tplan_share}/scripts)
# The reports read the published figures from tests/data relative to
# their parent directory, in a checkout and under share/tplan alike.
install(FILES
        ${CMAKE_SOURCE_DIR}/tests/data/README.md
        ${CMAKE_SOURCE_DIR}/tests/data/torch_cpu_gpt2.csv
        ${CMAKE_SOURCE_DIR}/tests/data/torch_cpu_llama.csv
        ${CMAKE_SOURCE_DIR}/tests/data/torch_cpu_bert.csv
        ${CMAKE_SOURCE_DIR}/tests/data/throughput_llmfoundry_half.json
        ${CMAKE_SOURCE_DIR}/tests/data/nemo_h100_pretrain.tsv
        ${CMAKE_SOURCE_DIR}/tests/data/bert_v100_nvidia.tsv
        ${CMAKE_SOURCE_DIR}/tests/data/korthikanti_table5.tsv
        ${CMAKE_SOURCE_DIR}/tests/data/deepspeed_fsdp_2024.tsv
        ${CMAKE_SOURCE_DIR}/tests/data/frontier_runs.tsv
        DESTINATION ${tplan_share}/tests/data)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/tests/data/hf
        DESTINATION ${tplan_share}/tests/data)
# GPU measurements (scripts/accuracy_gpu.sh) and the script that made them
install(DIRECTORY ${CMAKE_SOURCE_DIR}/tests/data/gpu
        DESTINATION ${tplan_share}/tests/data)
