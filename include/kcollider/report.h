/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The race report: the contract between the module (which prints it to
 * dmesg and to debugfs) and the CLI (which parses it).
 *
 * The layout is KCSAN's, line for line, with kcollider's tool name, so the
 * eyes and scripts that read KCSAN reports (syzkaller's included) read it.
 * kcollider's own facts follow in lines that each begin "kcollider: <key>:"
 * and are "key=value" pairs separated by spaces; KCSAN-style parsers ignore
 * them. A two-sided report:
 *
 * ==================================================================
 * BUG: KCOLLIDER: data-race in mydrv_get / mydrv_put
 *
 * read-write to 0xffffffffc0a02010 of 4 bytes by task 211 on cpu 1:
 *  mydrv_put+0x12/0x30 [mydrv]
 *  mydrv_worker+0x41/0x90 [mydrv]
 *  kthread+0xd7/0x100
 *  ret_from_fork+0x22/0x30
 *
 * read-write to 0xffffffffc0a02010 of 4 bytes by task 210 on cpu 0:
 *  mydrv_get+0xc/0x30 [mydrv]
 *  mydrv_worker+0x41/0x90 [mydrv]
 *  kthread+0xd7/0x100
 *  ret_from_fork+0x22/0x30
 *
 * value changed: 0x00000005 -> 0x00000004
 *
 * kcollider: sampled: ip=0xffffffffc0a0000c sym=mydrv_get+0xc/0x30 mod=mydrv op=add access=read-write size=4
 * kcollider: racer: ip=0xffffffffc0a0010e trap_ip=0xffffffffc0a00112 sym=mydrv_put+0xe/0x30 mod=mydrv op=sub access=read-write size=4 locked=0 addr=0xffffffffc0a02010
 * kcollider: watch: addr=0xffffffffc0a02010 len=4 type=rw window_us=812 armed=4/4
 * kcollider: context: racer=task racer_irqs=on sampled=task sampled_irqs=on
 * kcollider: object: global sym=mydrv_users+0x0/0x4 mod=mydrv
 * kcollider: class: harmful
 * kcollider: seq: 17
 *
 * Reported by kcollider on:
 * CPU: 0 PID: 210 Comm: mydrv/0 Tainted: G           OE      6.1.0-56-amd64
 * ==================================================================
 *
 * Rules:
 * - First access block: the racer, caught by the watchpoint. Its stack is
 *   unwound from the trap, so its top frame is the instruction AFTER the
 *   access; the "racer:" line gives the access itself (ip=), the trap
 *   ip and, when its registers tell, the address it accessed (addr=; a
 *   string instruction's element, read from rdi/rsi after the trap).
 *   Second block: the sampled access; its top frame IS the access.
 * - Header: the two functions of the accesses, without offsets, sorted as
 *   strings (the pair is the dedup key, as in syzbot titles).
 * - "by task PID" or "by interrupt" (hardirq, softirq or NMI-like); the
 *   context line says which.
 * - value line only when the value changed; 2 * size hex digits (size <= 8).
 * - One-sided (the value changed, no racer caught): header
 *   "BUG: KCOLLIDER: data-race in <f>+0xoff/0xsize", one access block that
 *   begins "race at unknown origin, with <type> to ...", and the line
 *   "kcollider: racer: unknown".
 * - object: "global sym=<symbol>+0xoff/0xsize", "slab cache=<name>
 *   start=0x... offset=<n> size=<n>", "percpu cpu=<n> unit_offset=0x..."
 *   (the copy of CPU n of per-CPU data), "stack", or "unknown". A slab
 *   object of a SLAB_TYPESAFE_BY_RCU cache adds " typesafe_by_rcu=1",
 *   and " freed_in_window=1" when it was freed while the window was open
 *   (reuse under a reader is by design there: not dropped as
 *   memory-reuse, the next owner's accesses are the race).
 * - class: "harmful" (with " idempotent=1" when the racer wrote the value
 *   that was already there: marked, never pruned), or "benign
 *   filter=<name>" (filters: locked-racer, lossy-counter, other-bits,
 *   suppressed, memory-reuse, marked-atomic, marked, own-wakeup,
 *   own-cpu, exempt) when
 *   benign races are printed in full.
 * - marking: after a harmful class line, "sampled=<kind> racer=<kind>"
 *   (plain, marked, data_race, exempt, or unknown for a function "mark"
 *   did not read; no racer= in a one-sided report) where the source of
 *   either side's function was read; otherwise "unknown load-store" when
 *   the pair is one aligned plain load and one plain store: the binary
 *   cannot show whether they were READ_ONCE()/WRITE_ONCE() (KCSAN's
 *   silence).
 * - watch: " cover=0x<addr>/<len>" when an unaligned access was watched
 *   through the aligned range around it.
 * - By default a benign race is not a report but one line of its own,
 *   outside any report: "kcollider: benign: filter=<name> sampled=<func>
 *   racer=<func|unknown> addr=0x... seq=<n>".
 * - sym= is "func+0xoff/0xsize" (no module); mod= follows for module code
 *   and is absent for the kernel image. Values never contain spaces.
 */
#ifndef KCOLLIDER_REPORT_H
#define KCOLLIDER_REPORT_H

#define KC_REPORT_RULE \
	"=================================================================="
#define KC_REPORT_TITLE "BUG: KCOLLIDER: data-race in "
/*
 * report_style=kcsan: KCSAN's title, which syzkaller files as
 * KCSAN-DATARACE; a benign race printed in full (benign_full) gets a header
 * without "BUG:", so no crash parser takes it for a crash. kcollider's own
 * lines keep their "kcollider: " prefix, which KCSAN tooling skips.
 */
#define KC_REPORT_TITLE_KCSAN "BUG: KCSAN: data-race in "
#define KC_REPORT_TITLE_BENIGN "KCOLLIDER: benign data-race in "
#define KC_REPORT_UNKNOWN_ORIGIN "race at unknown origin, with "
#define KC_REPORT_VALUE "value changed: "
#define KC_REPORT_TOOL_LINE "kcollider: "
#define KC_REPORT_FOOTER "Reported by kcollider on:"

/* Keys of kcollider's own lines, in the order they are printed. */
#define KC_REPORT_KEY_SAMPLED "sampled"
#define KC_REPORT_KEY_RACER "racer"
#define KC_REPORT_KEY_WATCH "watch"
#define KC_REPORT_KEY_CONTEXT "context"
/* lockdep kernels only: each side's held locks, comma separated */
#define KC_REPORT_KEY_LOCKS "locks"
#define KC_REPORT_LOCKS_SAMPLED "sampled"
#define KC_REPORT_LOCKS_RACER "racer"
#define KC_REPORT_LOCKS_SAMPLED_ONLY "sampled_only"
#define KC_REPORT_LOCKS_RACER_ONLY "racer_only"
#define KC_REPORT_KEY_OBJECT "object"
#define KC_REPORT_KEY_CLASS "class"
#define KC_REPORT_KEY_MARKING "marking"
#define KC_REPORT_KEY_SEQ "seq"

#endif /* KCOLLIDER_REPORT_H */
