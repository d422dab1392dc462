/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The source files a kernel tree builds without KCSAN: its Makefiles'
 * "KCSAN_SANITIZE := n" (every object of that directory) and
 * "KCSAN_SANITIZE_foo.o := n" (one object; ":= y" takes one back). Their
 * maintainers expect races there by design (the scheduler, SLUB, the
 * softirq core, x86's own code), so KCSAN never watches them; "kcollider
 * mark" gives their code the marking "exempt", and the module's "exempt"
 * filter treats it as KCSAN does.
 */
#ifndef KCOLLIDER_EXEMPT_H
#define KCOLLIDER_EXEMPT_H

#include <stdbool.h>

struct kc_exempt;

struct kc_exempt *kc_exempt_new(void);
void kc_exempt_free(struct kc_exempt *x);
/*
 * The rules of every Makefile and Kbuild file under the kernel tree
 * @root: 0, or -errno (-ENOMEM; a directory that cannot be read is
 * skipped). Rules under conditionals count as if they held.
 */
int kc_exempt_add_tree(struct kc_exempt *x, const char *root);
/* The rules of the one Makefile text @text, of directory @dir ("" top). */
int kc_exempt_add_makefile(struct kc_exempt *x, const char *dir,
			   const char *text);
/*
 * Is the compilation unit @cu (DWARF's name of it: "mm/slub.c", or an
 * absolute path ending in it) built without KCSAN?
 */
bool kc_exempt_cu(const struct kc_exempt *x, const char *cu);
/* The number of rules read. */
unsigned int kc_exempt_rules(const struct kc_exempt *x);

#endif /* KCOLLIDER_EXEMPT_H */
