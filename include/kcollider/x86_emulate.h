/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few loads kcollider's int3 handler carries out itself (see
 * lib/x86_emulate.c), on the decoder's instructions and register state.
 */
#ifndef KCOLLIDER_X86_EMULATE_H
#define KCOLLIDER_X86_EMULATE_H

#include "x86_decode.h"

/* The arithmetic flags of RFLAGS an add sets. */
#define KC_FLAG_CF	(1u << 0)
#define KC_FLAG_PF	(1u << 2)
#define KC_FLAG_AF	(1u << 4)
#define KC_FLAG_ZF	(1u << 6)
#define KC_FLAG_SF	(1u << 7)
#define KC_FLAG_OF	(1u << 11)
#define KC_FLAGS_ARITH	(KC_FLAG_CF | KC_FLAG_PF | KC_FLAG_AF | \
			 KC_FLAG_ZF | KC_FLAG_SF | KC_FLAG_OF)

/* One load of @size bytes at @addr, as the instruction makes it. */
typedef bool (*kc_emul_read_fn)(u64 addr, unsigned int size, u64 *val);

/* Whether kc_emulate_insn() can carry out @insn. */
bool kc_emulate_possible(const struct kc_insn *insn);

/*
 * Carry out @insn at @regs->ip: the new value of its destination register
 * (insn->reg, all 64 bits) in @result, and @flags updated. Returns 0,
 * -EINVAL if it is not an instruction this emulates, -EFAULT if @read
 * failed; @flags is then unchanged.
 */
int kc_emulate_insn(const struct kc_insn *insn, const struct kc_regs *regs,
		    u64 *flags, kc_emul_read_fn read, u64 *result);

/*
 * Whether a plain load of @size bytes (4 or 8: its register then holds
 * what it read, zero-extended) that touched any of the @len bytes at
 * offset @at of @bytes (@nbytes of memory as it was right after the load)
 * could have left @loaded in its register. Also true when @bytes does not
 * cover every such placement, or @size is another: nothing is known then.
 */
bool kc_load_could_read(const u8 *bytes, unsigned int nbytes,
			unsigned int at, unsigned int len, unsigned int size,
			u64 loaded);

#endif /* KCOLLIDER_X86_EMULATE_H */
