/* A fine-tune's method in words, for calc's text and the HTML reports'
 * header: what trains and how the frozen base is kept. */
#ifndef TPLAN_CLI_FT_TEXT_H
#define TPLAN_CLI_FT_TEXT_H

#include <stddef.h>

#include "plan.h"

/* "QLoRA: LoRA rank 16 on q,k,v,o: 13631488 trainable parameters
 * (0.170%), base nf4 with double quantization"; "" when every parameter
 * trains (a pre-training or full fine-tune). The method is QLoRA (QDoRA)
 * when the base is 4-bit, else LoRA (DoRA). */
void ft_text(char *buf, size_t len, const tplan_plan *p);

#endif
