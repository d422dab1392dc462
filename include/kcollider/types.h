/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where shared code learns its integer types: the kernel's
 * own in kernel context, <stdint.h>/<stdbool.h> in the tools, so the shared
 * sources compile unchanged on both sides.
 */
#ifndef KCOLLIDER_TYPES_H
#define KCOLLIDER_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#else
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;
#endif

#endif /* KCOLLIDER_TYPES_H */
