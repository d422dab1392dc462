// SPDX-License-Identifier: GPL-2.0
/*
 * The loads kcollider's int3 handler carries out itself, so that a
 * breakpoint stays in the text for a later execution of its site: what a
 * read of other CPUs' per-CPU copies usually is, a load into a general
 * register (mov, movzx, movsx, movsxd) or an add from memory, through a
 * plain pointer (no segment override, no LOCK, 64-bit addressing).
 *
 * Freestanding, as the decoder is: the module links this file and the
 * host test checks it against the CPU executing the same instructions.
 * The load itself is the caller's (@read), so that the kernel makes it
 * with its fault handling.
 */
#include <kcollider/x86_emulate.h>
#include <kcollider/nokprobe.h>

enum kc_emul {
	KC_EMUL_NONE,
	KC_EMUL_ZERO_EXTEND,	/* mov, movzx */
	KC_EMUL_SIGN_EXTEND,	/* movsx, movsxd */
	KC_EMUL_ADD,		/* add reg, mem */
};

static bool operands_plain(const struct kc_insn *insn)
{
	const struct kc_mem_operand *m = &insn->mem[0];
	u32 refused = KC_INSN_STORE | KC_INSN_LOCK | KC_INSN_VEX |
		      KC_INSN_EVEX | KC_INSN_STRING | KC_INSN_MOFFS |
		      KC_INSN_NOT_ACCESS | KC_INSN_IMPLICIT_STACK;

	return insn->nmem == 1 && insn->has_modrm && !insn->prefix &&
	       (insn->flags & KC_INSN_LOAD) && !(insn->flags & refused) &&
	       m->seg == KC_SEG_NONE && m->addr_size == 8 &&
	       m->access == KC_ACC_READ && insn->reg <= KC_REG_R15 &&
	       insn->reg != KC_REG_RSP &&
	       (insn->opsize == 4 || insn->opsize == 8);
}

static enum kc_emul emul_kind(const struct kc_insn *insn)
{
	unsigned int size = insn->mem[0].size;
	u8 op = insn->opcode;

	if (!operands_plain(insn))
		return KC_EMUL_NONE;
	if (insn->map == 0 && op == 0x8b && size == insn->opsize)
		return KC_EMUL_ZERO_EXTEND;
	if (insn->map == 0 && op == 0x03 && size == insn->opsize)
		return KC_EMUL_ADD;
	if (insn->map == 0 && op == 0x63 && size == 4 && insn->opsize == 8)
		return KC_EMUL_SIGN_EXTEND;
	if (insn->map == 1 && (op == 0xb6 || op == 0xb7) && size <= 2)
		return KC_EMUL_ZERO_EXTEND;
	if (insn->map == 1 && (op == 0xbe || op == 0xbf) && size <= 2)
		return KC_EMUL_SIGN_EXTEND;
	return KC_EMUL_NONE;
}
KC_NOKPROBE(emul_kind);

bool kc_emulate_possible(const struct kc_insn *insn)
{
	return emul_kind(insn) != KC_EMUL_NONE;
}
KC_NOKPROBE(kc_emulate_possible);

static u64 sign_extend(u64 val, unsigned int size)
{
	switch (size) {
	case 1:
		return (u64)(s64)(s8)val;
	case 2:
		return (u64)(s64)(s16)val;
	case 4:
		return (u64)(s64)(s32)val;
	}
	return val;
}

/* Even number of set bits in the low byte: PF. */
static bool parity_even(u64 v)
{
	u8 b = v;

	b ^= b >> 4;
	b ^= b >> 2;
	b ^= b >> 1;
	return !(b & 1);
}

/* @a + @b in @size bytes; the arithmetic flags as add sets them. */
static u64 add_flags(u64 a, u64 b, unsigned int size, u64 *flags)
{
	u64 mask = size == 8 ? ~0ULL : (1ULL << (size * 8)) - 1;
	u64 sign = 1ULL << (size * 8 - 1);
	u64 r, f = 0;

	a &= mask;
	b &= mask;
	r = (a + b) & mask;
	if (r < a)
		f |= KC_FLAG_CF;
	if (parity_even(r))
		f |= KC_FLAG_PF;
	if ((a ^ b ^ r) & 0x10)
		f |= KC_FLAG_AF;
	if (!r)
		f |= KC_FLAG_ZF;
	if (r & sign)
		f |= KC_FLAG_SF;
	if ((a ^ r) & (b ^ r) & sign)
		f |= KC_FLAG_OF;
	*flags = (*flags & ~(u64)KC_FLAGS_ARITH) | f;
	return r;
}

int kc_emulate_insn(const struct kc_insn *insn, const struct kc_regs *regs,
		    u64 *flags, kc_emul_read_fn read, u64 *result)
{
	enum kc_emul kind = emul_kind(insn);
	unsigned int size = insn->mem[0].size;
	u64 addr, val;

	if (kind == KC_EMUL_NONE ||
	    kc_effective_address(insn, 0, regs, &addr))
		return -EINVAL;
	if (!read(addr, size, &val))
		return -EFAULT;
	if (kind == KC_EMUL_SIGN_EXTEND)
		val = sign_extend(val, size);
	else if (kind == KC_EMUL_ADD)
		val = add_flags(regs->gpr[insn->reg], val, insn->opsize, flags);
	/* a 32-bit destination is zero-extended into the whole register */
	*result = insn->opsize == 4 ? (u32)val : val;
	return 0;
}
KC_NOKPROBE(kc_emulate_insn);

/*
 * A racer's load whose address register it overwrote cannot be placed
 * after its trap, but what it read is still in its destination: the
 * report drops a load that cannot have read the watched bytes (its #DB
 * was not the watch's). Little-endian assembly: this file is freestanding.
 */
bool kc_load_could_read(const u8 *bytes, unsigned int nbytes,
			unsigned int at, unsigned int len, unsigned int size,
			u64 loaded)
{
	unsigned int start, i;
	u64 v;

	if ((size != 4 && size != 8) || !len || at + 1 < size ||
	    at + len - 1 + size > nbytes)
		return true;
	for (start = at + 1 - size; start < at + len; start++) {
		v = 0;
		for (i = size; i--; )
			v = v << 8 | bytes[start + i];
		if (v == loaded)
			return true;
	}
	return false;
}
