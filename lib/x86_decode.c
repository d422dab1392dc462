// SPDX-License-Identifier: GPL-2.0
/*
 * kcollider's x86-64 instruction decoder.
 *
 * Freestanding on purpose: the same file is compiled into kcollider.ko,
 * where it runs in atomic context on kernel text it has never seen, and
 * into the host tests that check it against capstone over a whole
 * distribution kernel. So: no libc, no kernel headers beyond types.h, no
 * floating point, no global mutable state, a small stack frame.
 *
 * Decoding is table driven (lib/x86_opcode_tables.h): prefixes, then the
 * opcode (one-byte, 0F, 0F38, 0F3A maps, or VEX/EVEX), then ModRM/SIB/
 * displacement and the immediate whose kind the table gives. Semantics of
 * the memory operand come from the same per-opcode attributes; SSE/AVX
 * moves and x87 have small helpers because their meaning depends on the
 * mandatory prefix or ModRM.reg in ways a flat table states badly.
 */
#include <kcollider/x86_decode.h>
#include <kcollider/nokprobe.h>

#include "x86_opcode_tables.h"

#define VEX_NONE	0
#define VEX_VEX		1
#define VEX_EVEX	2

/* REX bits, also synthesized from VEX/EVEX. */
#define REX_B		0x1
#define REX_X		0x2
#define REX_R		0x4
#define REX_W		0x8

/* Decoder state that is not part of the result. */
struct kc_dec {
	const u8 *code;
	size_t avail;
	unsigned int pos;
	u8 rexbits;		/* REX_*: from REX or VEX/EVEX */
	u8 p66, p67, rep, lock, seg;
	u8 vex;			/* VEX_* */
	u8 evex_b, evex_aaa;
	u8 mod;			/* ModRM.mod if has_modrm */
	u8 sib;			/* SIB byte if has_sib */
	u8 has_sib;
	u8 evex_v;		/* EVEX.V': bit 4 of a VSIB index */
	u8 disp8;		/* the displacement is a disp8 */
};

/* Can @n more bytes be read? Never past 15 bytes, never past @avail. */
static int need(const struct kc_dec *d, unsigned int n)
{
	if (d->pos + n > KC_INSN_MAX_LEN)
		return -EINVAL;
	if (d->pos + n > d->avail)
		return -ENODATA;
	return 0;
}

static u64 get_le(const u8 *p, unsigned int n)
{
	u64 v = 0;

	while (n--)
		v = (v << 8) | p[n];
	return v;
}

static s64 sign_extend(u64 v, unsigned int bytes)
{
	unsigned int shift = 64 - 8 * bytes;

	return (s64)(v << shift) >> shift;
}

/* @r ends with RANGE_END, the one entry whose lo is above its hi. */
static bool in_ranges(const struct kc_range *r, u8 op)
{
	for (; r->lo <= r->hi; r++) {
		if (op >= r->lo && op <= r->hi)
			return true;
	}
	return false;
}

static int decode_prefixes(struct kc_dec *d)
{
	static const u8 seg_of[] = {
		[0x26 >> 3] = KC_SEG_ES, [0x2e >> 3] = KC_SEG_CS,
		[0x36 >> 3] = KC_SEG_SS, [0x3e >> 3] = KC_SEG_DS,
	};
	int err;
	u8 b;

	for (;;) {
		err = need(d, 1);
		if (err)
			return err;
		b = d->code[d->pos];
		if ((b & 0xf0) == 0x40) {
			d->rexbits = b & 0xf;
			d->pos++;
			continue;
		}
		switch (b) {
		case 0xf0:
			d->lock = 1;
			break;
		case 0xf2:
		case 0xf3:
			d->rep = b;	/* the last one counts */
			break;
		case 0x66:
			d->p66 = 1;
			break;
		case 0x67:
			d->p67 = 1;
			break;
		case 0x26:
		case 0x2e:
		case 0x36:
		case 0x3e:
			d->seg = seg_of[b >> 3];
			break;
		case 0x64:
			d->seg = KC_SEG_FS;
			break;
		case 0x65:
			d->seg = KC_SEG_GS;
			break;
		default:
			return 0;
		}
		/* A REX prefix followed by a legacy prefix is ignored. */
		d->rexbits = 0;
		d->pos++;
	}
}

static const u8 pp_prefix[4] = { 0, 0x66, 0xf3, 0xf2 };

/*
 * C5 (2-byte VEX), C4 (3-byte VEX), 62 (EVEX): in 64-bit mode these are
 * always prefixes (LES/LDS/BOUND do not exist). Their inverted R/X/B bits
 * become rexbits so that ModRM decoding is shared.
 */
static int decode_vex(struct kc_dec *d, struct kc_insn *insn, u8 esc)
{
	unsigned int n = esc == 0xc5 ? 1 : esc == 0xc4 ? 2 : 3;
	const u8 *p;
	u8 map, pp;
	int err;

	if (d->p66 || d->rep || d->lock || d->rexbits)
		return -EINVAL;
	err = need(d, n + 1);
	if (err)
		return err;
	p = d->code + d->pos;
	if (esc == 0xc5) {
		d->rexbits = (~p[0] >> 5) & REX_R;
		map = 1;
		insn->vex_l = (p[0] >> 2) & 1;
		pp = p[0] & 3;
		insn->flags |= KC_INSN_VEX;
		d->vex = VEX_VEX;
	} else if (esc == 0xc4) {
		d->rexbits = ((~p[0] >> 5) & 7) | (p[1] & 0x80 ? REX_W : 0);
		map = p[0] & 0x1f;
		insn->vex_l = (p[1] >> 2) & 1;
		pp = p[1] & 3;
		insn->flags |= KC_INSN_VEX;
		d->vex = VEX_VEX;
	} else {
		/* P0: R X B R' 0 0 m m; P1: W vvvv 1 pp; P2: z L'L b V' aaa */
		if ((p[0] & 0x0c) || !(p[1] & 0x04))
			return -EINVAL;
		d->rexbits = ((~p[0] >> 5) & 7) | (p[1] & 0x80 ? REX_W : 0);
		map = p[0] & 3;
		insn->vex_l = (p[2] >> 5) & 3;
		pp = p[1] & 3;
		d->evex_b = (p[2] >> 4) & 1;
		d->evex_aaa = p[2] & 7;
		d->evex_v = !(p[2] & 0x08);
		insn->flags |= KC_INSN_EVEX;
		d->vex = VEX_EVEX;
	}
	if (map < 1 || map > 3)
		return -EINVAL;
	insn->prefix = pp_prefix[pp];
	insn->map = map;
	d->pos += n;
	insn->opcode = d->code[d->pos++];
	return 0;
}

static int decode_opcode(struct kc_dec *d, struct kc_insn *insn)
{
	int err;
	u8 b;

	b = d->code[d->pos++];	/* decode_prefixes() checked it */
	if (b == 0xc4 || b == 0xc5 || b == 0x62)
		return decode_vex(d, insn, b);
	insn->rex = d->rexbits ? 0x40 | d->rexbits : 0;
	/* A REX prefix of 0x40 exactly still counts (it selects sil/dil). */
	if (d->pos >= 2 && (d->code[d->pos - 2] & 0xf0) == 0x40)
		insn->rex = d->code[d->pos - 2];
	insn->prefix = d->rep ? d->rep : d->p66 ? 0x66 : 0;
	if (b != 0x0f) {
		insn->opcode = b;
		return 0;
	}
	err = need(d, 1);
	if (err)
		return err;
	b = d->code[d->pos++];
	insn->map = 1;
	if (b == 0x38 || b == 0x3a) {
		err = need(d, 1);
		if (err)
			return err;
		insn->map = b == 0x38 ? 2 : 3;
		b = d->code[d->pos++];
	}
	insn->opcode = b;
	return 0;
}

/* Immediate of VEX/EVEX/SSE map-1 opcodes: pshuf*, shifts, cmp, shuf. */
static u32 map1_sse_imm(u8 op)
{
	if ((op >= 0x70 && op <= 0x73) || op == 0xc2 ||
	    (op >= 0xc4 && op <= 0xc6))
		return AT_IMM(IMM_B);
	return 0;
}

/* Attributes of a VEX or EVEX encoded opcode. */
static u32 vex_attr(const struct kc_dec *d, const struct kc_insn *insn)
{
	u8 op = insn->opcode;
	bool evex = d->vex == VEX_EVEX;

	switch (insn->map) {
	case 1:
		if (!evex && !in_ranges(map1_vex, op))
			return AT_INV;
		if (op == 0x77)		/* vzeroupper/vzeroall: no ModRM */
			return evex ? AT_INV : 0;
		return AT_MODRM | AT_SSE | map1_sse_imm(op);
	case 2:
		if (!evex && !in_ranges(map2_vex, op))
			return AT_INV;
		return AT_MODRM | AT_SSE;
	default:
		if (!evex && !in_ranges(map3_vex, op))
			return AT_INV;
		return AT_MODRM | AT_SSE | AT_IMM(IMM_B);
	}
}

/* Attributes of a legacy-encoded opcode, before ModRM.reg is known. */
static u32 opcode_attr(const struct kc_dec *d, const struct kc_insn *insn)
{
	u8 op = insn->opcode;

	if (d->vex)
		return vex_attr(d, insn);
	switch (insn->map) {
	case 0:
		return map0_attr[op];
	case 1:
		/* extrq/insertq imm8, imm8 share 0f 78 with vmread */
		if (op == 0x78 && (d->p66 || d->rep == 0xf2))
			return AT_MODRM | AT_SSE | AT_IMM(IMM_W);
		if (op == 0xb8 && d->rep != 0xf3)	/* jmpe: IA-64 */
			return AT_INV;
		return map1_attr[op];
	case 2:
		if (!in_ranges(map2_legacy, op))
			return AT_INV;
		return AT_MODRM | AT_SSE;
	default:
		if (!in_ranges(map3_legacy, op))
			return AT_INV;
		return AT_MODRM | AT_SSE | AT_IMM(IMM_B);
	}
}

/* 0f 01 with mod == 3: one system instruction per ModRM byte. */
static bool grp7_reg_valid(u8 modrm)
{
	static const u32 valid[2] = {
		/* c0-c4 c8-cb cf d0 d1 d4-d7 d8-df */
		0x1fu | 0xfu << 8 | 1u << 15 | 3u << 16 | 0xfu << 20 |
			0xffu << 24,
		/* e0-e8 ea ee-ff */
		0x1ffu | 1u << 10 | 0xffffu << 14,
	};

	return valid[(modrm >> 5) & 1] & (1u << (modrm & 0x1f));
}

/* Validity of the register (mod == 3) forms of group opcodes. */
static bool grp_reg_valid(unsigned int grp, u8 modrm, u32 gattr)
{
	unsigned int reg = (modrm >> 3) & 7;

	switch (grp) {
	case GRP_7:
		return grp7_reg_valid(modrm);
	case GRP_9:
		return reg >= 6;		/* rdrand, rdseed/rdpid */
	case GRP_11:
		return reg == 0 || modrm == 0xf8;	/* xabort, xbegin */
	case GRP_5:
		return reg != 3 && reg != 5 && reg != 7; /* no far reg */
	case GRP_PL6:			/* montmul, xsha1, xsha256 */
		return modrm == 0xc0 || modrm == 0xc8 || modrm == 0xd0;
	case GRP_PL7:			/* xstore, xcrypt ecb cbc ctr cfb ofb */
		return (modrm & 0xc7) == 0xc0 && modrm <= 0xe8;
	case GRP_15:
	case GRP_16:
	case GRP_P:
		return true;
	default:
		return !(gattr & AT_INV);
	}
}

/*
 * Merge the group entry selected by ModRM.reg into the opcode's
 * attributes. The opcode keeps what it says about length and operand
 * size; the entry says what the instruction does.
 */
static u32 group_attr(u32 attr, u8 modrm)
{
	unsigned int grp = AT_GRP_OF(attr);
	unsigned int reg = (modrm >> 3) & 7;
	u32 g = grp_attr[grp][reg];

	if ((modrm >> 6) == 3) {
		if (!grp_reg_valid(grp, modrm, g))
			return AT_INV;
		/* a register form whose memory form does not exist */
		if (g & AT_INV)
			g = 0;
	} else if (g & AT_INV) {
		return AT_INV;
	}
	if (g & AT_GIMM)			/* test Eb, Ib / Ev, Iz */
		attr |= (attr & AT_BYTE) ? AT_IMM(IMM_B) : AT_IMM(IMM_Z);
	return (attr & AT_FROM_OPCODE) | g;
}

/*
 * ModRM, SIB and displacement. Fills mem[0] with the address expression
 * when mod != 3; returns 1 then, 0 for a register operand.
 */
static int decode_modrm(struct kc_dec *d, struct kc_insn *insn)
{
	struct kc_mem_operand *m = &insn->mem[0];
	unsigned int rm, disp_len = 0;
	u8 modrm, sib;
	int err;

	err = need(d, 1);
	if (err)
		return err;
	modrm = d->code[d->pos++];
	insn->modrm = modrm;
	insn->has_modrm = 1;
	insn->reg = ((modrm >> 3) & 7) | (d->rexbits & REX_R ? 8 : 0);
	d->mod = modrm >> 6;
	/* mov to/from cr/dr ignore mod: always a register operand */
	if (!d->vex && insn->map == 1 && (insn->opcode & 0xfc) == 0x20)
		d->mod = 3;
	if (d->mod == 3)
		return 0;

	m->base = KC_REG_NONE;
	m->index = KC_REG_NONE;
	m->scale = 1;
	m->seg = d->seg;
	m->addr_size = d->p67 ? 4 : 8;
	rm = modrm & 7;
	if (rm == 4) {
		err = need(d, 1);
		if (err)
			return err;
		sib = d->code[d->pos++];
		d->sib = sib;
		d->has_sib = 1;
		rm = sib & 7;
		m->index = ((sib >> 3) & 7) | (d->rexbits & REX_X ? 8 : 0);
		m->scale = 1 << (sib >> 6);
		if (m->index == KC_REG_RSP) {	/* no index */
			m->index = KC_REG_NONE;
			m->scale = 1;
		}
		if (rm == 5 && d->mod == 0)
			disp_len = 4;		/* disp32, no base */
		else
			m->base = rm | (d->rexbits & REX_B ? 8 : 0);
	} else if (rm == 5 && d->mod == 0) {
		m->base = KC_REG_RIP;
		disp_len = 4;
	} else {
		m->base = rm | (d->rexbits & REX_B ? 8 : 0);
	}
	if (d->mod == 1)
		disp_len = 1;
	else if (d->mod == 2)
		disp_len = 4;
	if (disp_len) {
		err = need(d, disp_len);
		if (err)
			return err;
		m->disp = sign_extend(get_le(d->code + d->pos, disp_len),
				      disp_len);
		d->pos += disp_len;
		d->disp8 = disp_len == 1;
	}
	return 1;
}

static unsigned int imm_len(const struct kc_dec *d, const struct kc_insn *insn,
			    unsigned int kind)
{
	switch (kind) {
	case IMM_B:
		return 1;
	case IMM_W:
		return 2;
	case IMM_Z:
		return insn->opsize == 2 ? 2 : 4;
	case IMM_V:
		return insn->opsize;
	case IMM_D:
		return 4;
	case IMM_WB:
		return 3;
	case IMM_MOFFS:
		return d->p67 ? 4 : 8;
	}
	return 0;
}

static int decode_imm(struct kc_dec *d, struct kc_insn *insn, u32 attr)
{
	unsigned int kind = AT_IMM_OF(attr);
	unsigned int n = imm_len(d, insn, kind);
	u64 v;
	int err;

	if (!n)
		return 0;
	err = need(d, n);
	if (err)
		return err;
	v = get_le(d->code + d->pos, n);
	d->pos += n;
	insn->has_imm = 1;
	if (kind == IMM_MOFFS)
		insn->imm = (s64)v;		/* an address: zero-extended */
	else if (kind == IMM_WB)
		insn->imm = (s64)(v & 0xffff);	/* enter's frame size */
	else
		insn->imm = sign_extend(v, n);
	return 0;
}

static unsigned int operand_size(const struct kc_dec *d, u32 attr)
{
	if (attr & AT_BYTE)
		return 1;
	if (d->rexbits & REX_W)
		return 8;
	if (d->p66)
		return 2;
	return (attr & AT_D64) ? 8 : 4;
}

/*
 * EVEX compresses disp8: the byte is scaled by N, the size of the memory
 * operand's "tuple". Full-vector operands (the default) use the vector
 * length, or the element size under embedded broadcast; the exceptions
 * below are the scalar, half/quarter/eighth-vector and sub-vector forms.
 * Returns log2(N).
 */
static unsigned int evex_disp8_shift(const struct kc_dec *d,
				     const struct kc_insn *insn)
{
	unsigned int vl = 4 + insn->vex_l;	/* log2 of 16/32/64 bytes */
	unsigned int w = d->rexbits & REX_W ? 3 : 2;
	u8 op = insn->opcode, pfx = insn->prefix;

	if (d->evex_b)
		return w;
	if (insn->map == 1) {
		switch (op) {
		case 0x10: case 0x11: case 0x51: case 0x58: case 0x59:
		case 0x5c: case 0x5d: case 0x5e: case 0x5f: case 0xc2:
			if (pfx == 0xf3)
				return 2;
			if (pfx == 0xf2)
				return 3;
			return vl;
		case 0x12: case 0x16:
			if (pfx == 0xf3)
				return vl;		/* movs[lh]dup */
			if (pfx == 0xf2)		/* movddup */
				return insn->vex_l ? vl : 3;
			return 3;
		case 0x13: case 0x17: case 0xd6:
			return 3;
		case 0x2a: case 0x6e:
			return w;
		case 0x7e:
			return pfx == 0xf3 ? 3 : w;
		case 0x2c: case 0x2d:
			return pfx == 0xf2 ? 3 : 2;
		case 0x2e: case 0x2f:
			return pfx == 0x66 ? 3 : 2;
		case 0x5a:
			if (pfx == 0xf3)
				return 2;
			if (pfx == 0xf2)
				return 3;
			return pfx ? vl : vl - 1;	/* cvtps2pd: half */
		case 0xe6:
			return pfx == 0xf3 ? vl - 1 : vl;
		case 0xc4:
			return 1;
		}
		return vl;
	}
	if (insn->map == 2) {
		if (pfx == 0x66 && ((op >= 0x20 && op <= 0x25) ||
				    (op >= 0x30 && op <= 0x35))) {
			/* pmovsx/zx: bw wd dq half, bd wq quarter, bq 1/8 */
			static const u8 part[6] = { 1, 2, 3, 1, 2, 1 };

			return vl - part[op & 7];
		}
		if (pfx == 0xf3 && ((op >= 0x10 && op <= 0x15) ||
				    (op >= 0x20 && op <= 0x25) ||
				    (op >= 0x30 && op <= 0x35))) {
			/* vpmov* down-converts: qb 1/8, qw dw db ... */
			static const u8 part[6] = { 1, 2, 3, 1, 2, 1 };

			return vl - part[op & 7];
		}
		switch (op) {
		case 0x18: case 0x58:
			return 2;
		case 0x19: case 0x59:
			return 3;
		case 0x1a: case 0x5a:
			return 4;			/* 32x4, 64x2 */
		case 0x1b: case 0x5b:
			return 5;			/* 32x8, 64x4 */
		case 0x78:
			return 0;
		case 0x79:
			return 1;
		case 0x2d: case 0x43: case 0x4d: case 0x4f: case 0x99: case 0x9b:
		case 0x9d: case 0x9f: case 0xa9: case 0xab: case 0xad:
		case 0xaf: case 0xb9: case 0xbb: case 0xbd: case 0xbf:
			return w;			/* scalar */
		}
		return vl;
	}
	switch (op) {					/* map 3 */
	case 0x14: case 0x20:
		return 0;
	case 0x15:
		return 1;
	case 0x16: case 0x22:
		return w;
	case 0x17: case 0x21:
		return 2;
	case 0x0a: case 0x0b:
		return op == 0x0a ? 2 : 3;
	case 0x18: case 0x19: case 0x38: case 0x39:
		return 4;				/* 128-bit part */
	case 0x1a: case 0x1b: case 0x3a: case 0x3b:
		return 5;				/* 256-bit part */
	}
	return vl;
}

/*
 * SSE/AVX/AVX-512 moves, whose memory operand is exact: sets @size and
 * @acc and returns true. The mandatory prefix (or VEX/EVEX pp) selects
 * between packed, scalar and MMX forms.
 */
static bool sse_move(const struct kc_dec *d, const struct kc_insn *insn,
		     unsigned int *size, u8 *acc)
{
	unsigned int vec = 16u << insn->vex_l;
	unsigned int dq = d->rexbits & REX_W ? 8 : 4;
	u8 op = insn->opcode, pfx = insn->prefix;
	bool load = !(op & 1);

	if (insn->map == 2 && op == 0x2a && pfx == 0x66) {
		*size = vec;				/* movntdqa */
		*acc = KC_ACC_READ;
		return true;
	}
	if (insn->map != 1)
		return false;
	switch (op) {
	case 0x10: case 0x11:		/* movups movupd movss movsd */
		*size = pfx == 0xf3 ? 4 : pfx == 0xf2 ? 8 : vec;
		break;
	case 0x12: case 0x16:		/* movlps movhps movsldup movddup */
		if (pfx == 0xf2 && op == 0x16)
			return false;
		if (pfx == 0xf3)
			*size = vec;
		else if (pfx == 0xf2)
			*size = insn->vex_l ? vec : 8;
		else
			*size = 8;
		load = true;
		break;
	case 0x13: case 0x17:		/* movlps movhps stores */
		if (pfx != 0 && pfx != 0x66)
			return false;
		*size = 8;
		break;
	case 0x28: case 0x29: case 0x2b: /* movaps movapd movntps */
		if (pfx != 0 && pfx != 0x66)
			return false;
		*size = vec;
		load = op == 0x28;
		break;
	case 0x6e:			/* movd/movq to xmm/mm */
		if (pfx != 0x66 && (pfx || d->vex))
			return false;
		*size = dq;
		load = true;
		break;
	case 0x7e:			/* movd/movq from xmm/mm; f3: movq */
		if (pfx == 0xf3) {
			*size = 8;
		} else if (pfx == 0x66 || (!pfx && !d->vex)) {
			*size = dq;
			load = false;
		} else {
			return false;
		}
		if (pfx == 0xf3)
			load = true;
		break;
	case 0x6f: case 0x7f:		/* movq mm, movdqa, movdqu */
		if (!pfx && d->vex)
			return false;
		*size = pfx ? vec : 8;
		load = op == 0x6f;
		break;
	case 0xd6:			/* movq m64, xmm */
		if (pfx != 0x66)
			return false;
		*size = 8;
		load = false;
		break;
	case 0xe7:			/* movntq, movntdq */
		if (pfx != 0x66 && (pfx || d->vex))
			return false;
		*size = pfx ? vec : 8;
		load = false;
		break;
	case 0xf0:			/* lddqu */
		if (pfx != 0xf2)
			return false;
		*size = vec;
		load = true;
		break;
	default:
		return false;
	}
	*acc = load ? KC_ACC_READ : KC_ACC_WRITE;
	return true;
}

/* SSE/AVX instructions other than moves whose memory operand is written. */
static bool sse_store(const struct kc_dec *d, const struct kc_insn *insn)
{
	u8 op = insn->opcode;

	switch (insn->map) {
	case 2:
		if (op == 0xf1 && !d->vex)		/* movbe m, r */
			return insn->prefix != 0xf2;
		if (d->vex == VEX_VEX)			/* vmaskmov stores */
			return op == 0x2e || op == 0x2f || op == 0x8e;
		if (d->vex != VEX_EVEX)
			return false;
		if (insn->prefix == 0xf3 && ((op >= 0x10 && op <= 0x15) ||
					     (op >= 0x20 && op <= 0x25) ||
					     (op >= 0x30 && op <= 0x35)))
			return true;			/* vpmov* down-converts */
		return op == 0x63 || op == 0x8a || op == 0x8b ||
		       (op >= 0xa0 && op <= 0xa3);	/* compress, scatter */
	case 3:
		if (op >= 0x14 && op <= 0x17)		/* pextr*, extractps */
			return true;
		return d->vex && (op == 0x19 || op == 0x1b || op == 0x1d ||
				  op == 0x39 || op == 0x3b);
	}
	return false;
}

/* VSIB: gathers (VEX/EVEX 0f38 90-93), scatters, gather/scatter prefetch. */
static bool is_vsib(const struct kc_dec *d, const struct kc_insn *insn)
{
	u8 op = insn->opcode;

	if (!d->vex || insn->map != 2 || !d->has_sib)
		return false;
	if (op >= 0x90 && op <= 0x93)
		return true;
	return d->vex == VEX_EVEX &&
	       ((op >= 0xa0 && op <= 0xa3) || op == 0xc6 || op == 0xc7);
}

/*
 * x87 memory forms, by escape byte (d8-df) and ModRM.reg: bytes accessed,
 * 0x80 if written, 0 if the form does not exist.
 */
#define XW	0x80
static const u8 x87_mem_attr[8][8] = {
	{ 4, 4, 4, 4, 4, 4, 4, 4 },				/* d8 */
	{ 4, 0, XW | 4, XW | 4, 28, 2, XW | 28, XW | 2 },	/* d9 */
	{ 4, 4, 4, 4, 4, 4, 4, 4 },				/* da */
	{ 4, XW | 4, XW | 4, XW | 4, 0, 10, 0, XW | 10 },	/* db */
	{ 8, 8, 8, 8, 8, 8, 8, 8 },				/* dc */
	{ 8, XW | 8, XW | 8, XW | 8, 108, 0, XW | 108, XW | 2 },	/* dd */
	{ 2, 2, 2, 2, 2, 2, 2, 2 },				/* de */
	{ 2, XW | 2, XW | 2, XW | 2, 10, 8, XW | 10, XW | 8 },	/* df */
};

static u8 acc_of(u32 attr)
{
	return ((attr & AT_R) ? KC_ACC_READ : 0) |
	       ((attr & AT_W) ? KC_ACC_WRITE : 0);
}

static unsigned int size_of(const struct kc_insn *insn, u32 attr)
{
	static const u8 fixed[] = { [SZ_B] = 1, [SZ_W] = 2, [SZ_D] = 4,
				    [SZ_Q] = 8 };
	unsigned int sz = AT_SZ_OF(attr);

	if (sz == SZ_V)
		return insn->opsize;
	return sz < sizeof(fixed) ? fixed[sz] : 0;
}

/* Size and direction of the ModRM memory operand, when not in the table. */
static int special_mem(const struct kc_dec *d, struct kc_insn *insn,
		       u32 *attr, unsigned int *size, u8 *acc)
{
	u8 op = insn->opcode;
	unsigned int reg = (insn->modrm >> 3) & 7;

	if (insn->map == 0 && op >= 0xd8 && op <= 0xdf) {
		u8 x = x87_mem_attr[op - 0xd8][reg];

		if (!x)
			return -EINVAL;
		*size = x & ~XW;
		*acc = x & XW ? KC_ACC_WRITE : KC_ACC_READ;
		return 0;
	}
	if (insn->map == 0 && op == 0x63 && d->p66 && !(d->rexbits & REX_W))
		*size = 2;				/* movsxd r16, m16 */
	if (insn->map != 1)
		return 0;
	if (op == 0xc7 && reg == 1)			/* cmpxchg8b/16b */
		*size = d->rexbits & REX_W ? 16 : 8;
	if (op == 0xae && !d->vex && d->p66 && reg >= 6)
		*attr = AT_NOTACC | AT_OP(KC_OP_CLFLUSH); /* clwb clflushopt */
	if (op == 0xae && d->vex) {			/* vldmxcsr vstmxcsr */
		if (reg != 2 && reg != 3)
			return -EINVAL;
		*size = 4;
		*acc = reg == 2 ? KC_ACC_READ : KC_ACC_WRITE;
		*attr &= ~AT_SSE;
	}
	return 0;
}

static int mem_semantics(struct kc_dec *d, struct kc_insn *insn, u32 attr)
{
	struct kc_mem_operand *m = &insn->mem[0];
	unsigned int size = size_of(insn, attr);
	u8 acc = acc_of(attr);
	bool known = attr & AT_KNOWN;
	int err;

	err = special_mem(d, insn, &attr, &size, &acc);
	if (err)
		return err;
	if (attr & AT_NOTACC) {
		insn->flags |= KC_INSN_NOT_ACCESS;
		insn->op = AT_OP_OF(attr);
		return 0;
	}
	if (attr & AT_SSE) {
		known = sse_move(d, insn, &size, &acc);
		if (!known) {
			size = 0;
			acc = sse_store(d, insn) ? KC_ACC_WRITE : KC_ACC_READ;
		} else {
			insn->op = KC_OP_MOV;
		}
		/* masked or broadcast EVEX forms touch only some bytes */
		if (d->evex_aaa || d->evex_b)
			known = false;
	}
	if (is_vsib(d, insn)) {
		insn->flags |= KC_INSN_VSIB;
		m->index = ((d->sib >> 3) & 7) | (d->rexbits & REX_X ? 8 : 0) |
			   (d->evex_v ? 16 : 0);
		m->scale = 1 << (d->sib >> 6);
		known = false;
	}
	if (attr & AT_BITREG)
		insn->flags |= KC_INSN_BITOFF_REG;
	/* Unknown direction: say both, so no store is ever missed. */
	m->access = acc ? acc : KC_ACC_RW;
	m->size = size;
	insn->nmem = 1;
	insn->flags |= KC_INSN_MEM | (known ? KC_INSN_SEM_KNOWN : 0);
	if (insn->map == 0 && (insn->opcode & 0xfe) == 0x86)
		insn->flags |= KC_INSN_ATOMIC | KC_INSN_BARRIER; /* xchg m */
	return 0;
}

static void set_str_operand(struct kc_mem_operand *m, const struct kc_dec *d,
			    u8 base, u8 acc, unsigned int size)
{
	m->base = base;
	m->index = KC_REG_NONE;
	m->scale = 1;
	/* es:rdi cannot be overridden; ds:rsi can (fs/gs matter) */
	m->seg = base == KC_REG_RSI ? d->seg : KC_SEG_NONE;
	m->addr_size = d->p67 ? 4 : 8;
	m->access = acc;
	m->size = size;
	m->disp = 0;
}

/* movs cmps stos lods scas ins outs: rdi operand first, then rsi. */
static void string_operands(const struct kc_dec *d, struct kc_insn *insn)
{
	unsigned int size = insn->opsize;
	u8 op = insn->opcode & 0xfe;
	u8 rdi = KC_ACC_NONE, rsi = KC_ACC_NONE;

	switch (op) {
	case 0xa4:
		rdi = KC_ACC_WRITE;
		rsi = KC_ACC_READ;
		break;
	case 0xa6:
		rdi = KC_ACC_READ;
		rsi = KC_ACC_READ;
		break;
	case 0xaa: case 0x6c:
		rdi = KC_ACC_WRITE;
		break;
	case 0xae:
		rdi = KC_ACC_READ;
		break;
	case 0xac: case 0x6e:
		rsi = KC_ACC_READ;
		break;
	}
	if (rdi)
		set_str_operand(&insn->mem[insn->nmem++], d, KC_REG_RDI, rdi,
				size);
	if (rsi)
		set_str_operand(&insn->mem[insn->nmem++], d, KC_REG_RSI, rsi,
				size);
	insn->flags |= KC_INSN_MEM | KC_INSN_STRING;
	if (d->rep == 0xf3)
		insn->flags |= KC_INSN_REP;
	else if (d->rep == 0xf2)
		insn->flags |= KC_INSN_REPNE;
}

/* mov al/ax/eax/rax <-> moffs: absolute address, kept in imm. */
static void moffs_operand(const struct kc_dec *d, struct kc_insn *insn,
			  u32 attr)
{
	struct kc_mem_operand *m = &insn->mem[0];

	m->base = KC_REG_NONE;
	m->index = KC_REG_NONE;
	m->scale = 1;
	m->seg = d->seg;
	m->addr_size = d->p67 ? 4 : 8;
	m->access = acc_of(attr);
	m->size = insn->opsize;
	m->disp = 0;
	insn->nmem = 1;
	insn->flags |= KC_INSN_MEM | KC_INSN_SEM_KNOWN | KC_INSN_MOFFS;
}

/* Branches: what the CFG builder and the TSO analysis need. */
static void branch_flags(struct kc_insn *insn)
{
	u32 f = 0;

	switch (insn->op) {
	case KC_OP_JCC:
		f = KC_INSN_BRANCH | KC_INSN_COND;
		break;
	case KC_OP_JMP:
		f = KC_INSN_BRANCH;
		break;
	case KC_OP_CALL:
		f = KC_INSN_BRANCH | KC_INSN_CALL;
		break;
	case KC_OP_RET:
	case KC_OP_IRET:
		insn->flags |= KC_INSN_BRANCH | KC_INSN_RET;
		return;
	default:
		/* xbegin: the abort path is a conditional branch */
		if (insn->map == 0 && insn->opcode == 0xc7 &&
		    insn->modrm == 0xf8)
			f = KC_INSN_BRANCH | KC_INSN_COND;
		else
			return;
	}
	if (insn->has_imm) {
		f |= KC_INSN_REL_TARGET;
		insn->rel_target = insn->imm;
	} else {
		f |= KC_INSN_INDIRECT;
	}
	insn->flags |= f;
}

/* Fences and the serializing instructions the tables cannot express. */
static void system_semantics(const struct kc_dec *d, struct kc_insn *insn)
{
	u8 op = insn->opcode, modrm = insn->modrm;
	bool np = !d->p66 && !d->rep && !d->vex;

	if (insn->map == 0 && op == 0x90 && !(d->rexbits & REX_B))
		insn->op = d->rep == 0xf3 ? KC_OP_OTHER : KC_OP_NOP; /* pause */
	if (insn->map == 1 && op == 0xae && d->mod == 3 && np) {
		if (((modrm >> 3) & 7) == 5)
			insn->op = KC_OP_LFENCE;
		if (((modrm >> 3) & 7) == 6) {
			insn->op = KC_OP_MFENCE;
			insn->flags |= KC_INSN_BARRIER;
		}
		if (((modrm >> 3) & 7) == 7)
			insn->op = KC_OP_SFENCE;
	}
	/*
	 * 0F 01's register forms (swapgs, rdtscp, xgetbv, clac, vmrun...)
	 * share group 7 with lgdt, lidt and invlpg, whose serializing the
	 * table gives; of them only serialize is. rdtscp waits for earlier
	 * loads, not stores: taken for a barrier it would hide a reordering.
	 */
	if (insn->map == 1 && op == 0x01 && d->mod == 3)
		insn->flags &= ~KC_INSN_SERIALIZING;
	if (insn->map == 1 && op == 0x01 && modrm == 0xe8 && np)
		insn->flags |= KC_INSN_SERIALIZING;	/* serialize */
	/* mov to cr (but not cr8, the TPR) and to dr */
	if (insn->map == 1 && !d->vex &&
	    ((op == 0x22 && insn->reg != 8) || op == 0x23))
		insn->flags |= KC_INSN_SERIALIZING;
	/* invept invvpid invpcid */
	if (insn->map == 2 && !d->vex && op >= 0x80 && op <= 0x82)
		insn->flags |= KC_INSN_SERIALIZING;
	/* PadLock: implicit memory through rsi/rdi/rbx/rdx */
	if (insn->map == 1 && (op == 0xa6 || op == 0xa7))
		insn->flags |= KC_INSN_LOAD | KC_INSN_STORE;
	if (insn->map == 1 && (op == 0x07 || op == 0x35))
		insn->flags |= KC_INSN_BRANCH | KC_INSN_RET; /* sysret sysexit */
}

static int classify(struct kc_dec *d, struct kc_insn *insn, u32 attr,
		    bool has_mem)
{
	int err;

	insn->op = AT_OP_OF(attr);
	if (attr & AT_SERIAL)
		insn->flags |= KC_INSN_SERIALIZING;
	if (has_mem) {
		err = mem_semantics(d, insn, attr);
		if (err)
			return err;
	} else if (attr & AT_STR) {
		string_operands(d, insn);
	} else if (AT_IMM_OF(attr) == IMM_MOFFS) {
		moffs_operand(d, insn, attr);
	}
	system_semantics(d, insn);
	branch_flags(insn);
	if (attr & AT_STACK) {
		insn->flags |= KC_INSN_IMPLICIT_STACK;
		if (insn->op == KC_OP_PUSH || insn->op == KC_OP_CALL ||
		    insn->opcode == 0xc8)		/* enter */
			insn->flags |= KC_INSN_STORE;
		else
			insn->flags |= KC_INSN_LOAD;	/* pop ret iret leave */
	}
	if (insn->mem[0].access & KC_ACC_READ && insn->nmem)
		insn->flags |= KC_INSN_LOAD;
	if (insn->mem[0].access & KC_ACC_WRITE && insn->nmem)
		insn->flags |= KC_INSN_STORE;
	if (insn->nmem > 1)
		insn->flags |= KC_INSN_LOAD;		/* movs, cmps: rsi */
	if (d->lock)
		insn->flags |= KC_INSN_LOCK | KC_INSN_ATOMIC | KC_INSN_BARRIER;
	if (insn->flags & KC_INSN_SERIALIZING)
		insn->flags |= KC_INSN_BARRIER;
	return 0;
}

int kc_decode(const u8 *code, size_t avail, struct kc_insn *insn)
{
	struct kc_dec d = { .code = code, .avail = avail };
	int err, has_mem = 0;
	u32 attr;

	*insn = (struct kc_insn){ 0 };
	err = decode_prefixes(&d);
	if (err)
		return err;
	err = decode_opcode(&d, insn);
	if (err)
		return err;
	attr = opcode_attr(&d, insn);
	if (attr & AT_INV)
		return -EINVAL;
	if (attr & AT_MODRM) {
		has_mem = decode_modrm(&d, insn);
		if (has_mem < 0)
			return has_mem;
	}
	if (AT_GRP_OF(attr)) {
		attr = group_attr(attr, insn->modrm);
		if (attr & AT_INV)
			return -EINVAL;
	}
	insn->opsize = operand_size(&d, attr);
	err = decode_imm(&d, insn, attr);
	if (err)
		return err;
	if (d.vex == VEX_EVEX && has_mem && d.disp8)
		insn->mem[0].disp *= 1 << evex_disp8_shift(&d, insn);
	insn->length = d.pos;
	return classify(&d, insn, attr, has_mem);
}

int kc_effective_address(const struct kc_insn *insn, unsigned int n,
			 const struct kc_regs *regs, u64 *addr)
{
	const struct kc_mem_operand *m = &insn->mem[n];
	u64 ea;
	s64 bit;

	if (n >= insn->nmem || n >= 2 || !(insn->flags & KC_INSN_MEM) ||
	    (insn->flags & KC_INSN_VSIB))
		return -EINVAL;
	if (insn->flags & KC_INSN_MOFFS) {
		ea = (u64)insn->imm;
	} else {
		ea = (u64)(s64)m->disp;
		if (m->base == KC_REG_RIP)
			ea += regs->ip + insn->length;
		else if (m->base < 16)
			ea += regs->gpr[m->base];
		if (m->index < 16)
			ea += regs->gpr[m->index] * m->scale;
	}
	/* pop m with an rsp base: rsp is incremented first */
	if (insn->op == KC_OP_POP && m->base == KC_REG_RSP)
		ea += insn->opsize;
	/* bt* m, reg: the operand-sized word holding bit (signed) reg */
	if ((insn->flags & KC_INSN_BITOFF_REG) && n == 0 &&
	    (insn->opsize == 2 || insn->opsize == 4 || insn->opsize == 8)) {
		bit = sign_extend(regs->gpr[insn->reg], insn->opsize);
		ea += (u64)((bit >> (insn->opsize == 2 ? 4 :
				     insn->opsize == 4 ? 5 : 6)) *
			    insn->opsize);
	}
	if (m->addr_size == 4)
		ea = (u32)ea;
	if (m->seg == KC_SEG_FS)
		ea += regs->fs_base;
	else if (m->seg == KC_SEG_GS)
		ea += regs->gs_base;
	*addr = ea;
	return 0;
}
KC_NOKPROBE(kc_effective_address);

bool kc_branch_target(const struct kc_insn *insn, u64 ip, u64 *target)
{
	if (!(insn->flags & KC_INSN_REL_TARGET))
		return false;
	*target = ip + insn->length + (u64)insn->rel_target;
	return true;
}

const char *kc_op_name(unsigned int op)
{
	static const char * const names[KC_OP_NR] = {
		[KC_OP_OTHER] = "other", [KC_OP_MOV] = "mov",
		[KC_OP_ADD] = "add", [KC_OP_SUB] = "sub", [KC_OP_ADC] = "adc",
		[KC_OP_SBB] = "sbb", [KC_OP_INC] = "inc", [KC_OP_DEC] = "dec",
		[KC_OP_NEG] = "neg", [KC_OP_NOT] = "not", [KC_OP_AND] = "and",
		[KC_OP_OR] = "or", [KC_OP_XOR] = "xor", [KC_OP_CMP] = "cmp",
		[KC_OP_TEST] = "test", [KC_OP_BT] = "bt", [KC_OP_BTS] = "bts",
		[KC_OP_BTR] = "btr", [KC_OP_BTC] = "btc",
		[KC_OP_SHIFT] = "shift", [KC_OP_SETCC] = "setcc",
		[KC_OP_CMOV] = "cmov", [KC_OP_XCHG] = "xchg",
		[KC_OP_CMPXCHG] = "cmpxchg", [KC_OP_XADD] = "xadd",
		[KC_OP_PUSH] = "push", [KC_OP_POP] = "pop",
		[KC_OP_STRING] = "string", [KC_OP_LEA] = "lea",
		[KC_OP_NOP] = "nop", [KC_OP_PREFETCH] = "prefetch",
		[KC_OP_CLFLUSH] = "clflush", [KC_OP_CALL] = "call",
		[KC_OP_JMP] = "jmp", [KC_OP_JCC] = "jcc", [KC_OP_RET] = "ret",
		[KC_OP_IRET] = "iret", [KC_OP_MFENCE] = "mfence",
		[KC_OP_LFENCE] = "lfence", [KC_OP_SFENCE] = "sfence",
		[KC_OP_INT3] = "int3", [KC_OP_UD] = "ud",
	};

	if (op >= KC_OP_NR || !names[op])
		return "?";
	return names[op];
}
