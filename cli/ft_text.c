/* A fine-tune's method in words (ft_text.h). */
#include "ft_text.h"

#include <stdio.h>

#include "finetune.h"

void ft_text(char *buf, size_t len, const tplan_plan *p)
{
    const tplan_config *c = &p->config;
    char targets[96];
    /* QLoRA is LoRA on a 4-bit base (Dettmers et al. 2023); DoRA's
     * quantized form is called QDoRA by its users */
    bool q4 = c->base_precision == TPLAN_BASE_NF4 ||
              c->base_precision == TPLAN_BASE_FP4;

    if (len)
        buf[0] = '\0';
    if (c->lora_rank <= 0)
        return;
    tplan_lora_targets_format(c->lora_targets, targets, sizeof targets);
    snprintf(buf, len,
             "%s: LoRA rank %lld%s on %s: %lld trainable parameters "
             "(%.3f%%), base %s%s%s",
             c->dora ? (q4 ? "QDoRA" : "DoRA") : (q4 ? "QLoRA" : "LoRA"),
             (long long)c->lora_rank, c->dora ? " (DoRA)" : "", targets,
             (long long)p->trainable_params,
             100.0 * (double)p->trainable_params / (double)p->params,
             tplan_base_precision_name(c->base_precision),
             c->base_precision == TPLAN_BASE_AUTO ? " (as the recipe)" : "",
             c->double_quant ? " with double quantization" : "");
}
