// SPDX-License-Identifier: GPL-2.0
/*
 * What to sample: the target list and the sampling sites decoded from it.
 *
 * A target is a function ("func" or "mod:func") or every function of a
 * module ("module:NAME", also one that loads later). Its sites are the
 * memory-accessing instructions whose semantics the shared decoder knows,
 * minus synchronization (LOCK'd, XCHG m), the stack (%rsp-based), per-CPU
 * data (%gs, unless sample_percpu), strings, and whatever kprobes refuses.
 * Each site is a kprobe registered disabled; the sampler arms a few.
 *
 * All changes happen under kc_state_lock, with sampling paused and every
 * in-flight stall finished, so no stalled thread still points at a site
 * that goes away.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "kcollider.h"

#define KC_MAX_TARGETS		64
#define KC_MAX_FUNC_SIZE	(64 * 1024)

static LIST_HEAD(kc_targets);
static unsigned int kc_nr_targets;

static bool kc_spec_valid(const char *spec)
{
	const char *c;

	if (!*spec || strlen(spec) >= sizeof(((struct kc_target *)0)->spec))
		return false;
	for (c = spec; *c; c++)
		if (!isalnum(*c) && *c != '_' && *c != '.' && *c != ':' &&
		    *c != '-')
			return false;
	if (!strncmp(spec, "module:", 7))
		return spec[7] && !strchr(spec + 7, ':');
	c = strchr(spec, ':');
	return !c || (c != spec && c[1] && !strchr(c + 1, ':'));
}

static struct kc_target *kc_target_find(const char *spec)
{
	struct kc_target *t;

	list_for_each_entry(t, &kc_targets, node)
		if (!strcmp(t->spec, spec))
			return t;
	return NULL;
}

/* The module name a target depends on, or NULL for vmlinux functions. */
static bool kc_target_module(const struct kc_target *t, char *name,
			     size_t size)
{
	const char *spec = t->is_module ? t->spec + 7 : t->spec;
	const char *colon = t->is_module ? NULL : strchr(spec, ':');
	size_t len = t->is_module ? strlen(spec) :
		     (colon ? (size_t)(colon - spec) : 0);

	if (!len || len >= size)
		return false;
	memcpy(name, spec, len);
	name[len] = '\0';
	return true;
}

static bool kc_site_wanted(const struct kc_insn *insn)
{
	const struct kc_mem_operand *m = &insn->mem[0];
	u32 f = insn->flags;

	if (!(f & KC_INSN_MEM) || !(f & KC_INSN_SEM_KNOWN) || insn->nmem != 1)
		return false;
	if (f & (KC_INSN_ATOMIC | KC_INSN_STRING | KC_INSN_NOT_ACCESS |
		 KC_INSN_IMPLICIT_STACK | KC_INSN_BRANCH))
		return false;
	if (m->base == KC_REG_RSP || m->seg == KC_SEG_FS || !m->access ||
	    !m->size)
		return false;
	if (m->seg == KC_SEG_GS && !READ_ONCE(kc_settings.sample_percpu))
		return false;
	return true;
}

/* Original bytes of [addr, addr + len): our own probes show 0xcc. */
static int kc_read_text(unsigned long addr, u8 *buf, size_t len)
{
	size_t i;
	u8 orig;

	if (copy_from_kernel_nofault(buf, (void *)addr, len))
		return -EFAULT;
	for (i = 0; i < len; i++)
		if (buf[i] == 0xcc && kc_addr_is_probe(addr + i, &orig))
			buf[i] = orig;
	return 0;
}

/* For the worker: original bytes, under the lock that guards the sites. */
int kc_read_original(unsigned long addr, u8 *buf, size_t len)
{
	int ret;

	mutex_lock(&kc_state_lock);
	ret = kc_read_text(addr, buf, len);
	mutex_unlock(&kc_state_lock);
	return ret;
}

static int kc_site_register(struct kc_site *site, unsigned long addr,
			    const struct kc_insn *insn)
{
	memset(site, 0, sizeof(*site));
	site->kp.addr = (kprobe_opcode_t *)addr;
	site->kp.pre_handler = kc_site_pre_handler;
	site->kp.post_handler = kc_site_post_handler;
	site->kp.flags = KPROBE_FLAG_DISABLED;
	site->insn = *insn;
	if (register_kprobe(&site->kp)) {
		atomic_long_inc(&kc_stats.sites_refused);
		return -EINVAL;
	}
	site->registered = true;
	return 0;
}

/*
 * Decode one function and register its sites into @t's array, which was
 * sized by kc_count_sites(): a registered kprobe must never move, so the
 * array is never reallocated.
 */
static int kc_decode_function(struct kc_target *t, unsigned int cap,
			      unsigned long start, unsigned long size)
{
	struct kc_insn insn;
	unsigned long off;
	u8 *code;

	if (!size || size > KC_MAX_FUNC_SIZE)
		return 0;
	code = kvmalloc(size, GFP_KERNEL);
	if (!code)
		return -ENOMEM;
	if (kc_read_text(start, code, size))
		goto out;
	for (off = 0; off < size && t->nr_sites < cap; off += insn.length) {
		if (kc_decode(code + off, size - off, &insn))
			break;
		if (kc_site_wanted(&insn) &&
		    !kc_site_register(&t->sites[t->nr_sites], start + off,
				      &insn))
			t->nr_sites++;
	}
out:
	kvfree(code);
	return 0;
}

static unsigned int kc_count_sites(unsigned long start, unsigned long size)
{
	struct kc_insn insn;
	unsigned int n = 0;
	unsigned long off;
	u8 *code;

	if (!size || size > KC_MAX_FUNC_SIZE)
		return 0;
	code = kvmalloc(size, GFP_KERNEL);
	if (!code)
		return 0;
	if (!kc_read_text(start, code, size)) {
		for (off = 0; off < size; off += insn.length) {
			if (kc_decode(code + off, size - off, &insn))
				break;
			n += kc_site_wanted(&insn);
		}
	}
	kvfree(code);
	return n;
}

struct kc_func {
	unsigned long start;
	unsigned long size;
};

static int kc_target_build(struct kc_target *t, const struct kc_func *funcs,
			   unsigned int nr_funcs)
{
	unsigned int i, total = 0;
	int ret = 0;

	for (i = 0; i < nr_funcs; i++)
		total += kc_count_sites(funcs[i].start, funcs[i].size);
	t->nr_sites = 0;
	t->sites = NULL;
	if (!total)
		return 0;
	t->sites = kvcalloc(total, sizeof(*t->sites), GFP_KERNEL);
	if (!t->sites)
		return -ENOMEM;
	for (i = 0; i < nr_funcs && !ret; i++)
		ret = kc_decode_function(t, total, funcs[i].start,
					 funcs[i].size);
	return ret;
}

static void kc_target_unbuild(struct kc_target *t)
{
	struct kprobe **kps;
	unsigned int i, n = 0;

	if (!t->sites)
		return;
	kps = kvcalloc(t->nr_sites, sizeof(*kps), GFP_KERNEL);
	for (i = 0; i < t->nr_sites; i++) {
		if (!t->sites[i].registered)
			continue;
		if (kps)
			kps[n++] = &t->sites[i].kp;
		else
			unregister_kprobe(&t->sites[i].kp);
	}
	if (kps && n)
		unregister_kprobes(kps, n);
	kvfree(kps);
	kvfree(t->sites);
	t->sites = NULL;
	t->nr_sites = 0;
	t->loaded = false;
}

/* "func" or "mod:func": resolve through kprobes, size through kallsyms. */
static int kc_resolve_function(const char *name, struct kc_func *f)
{
	struct kprobe kp = {
		.symbol_name = name,
		.flags = KPROBE_FLAG_DISABLED,
	};
	char sym[KSYM_SYMBOL_LEN];
	unsigned long off, size;
	char *slash, *plus;
	int ret;

	ret = register_kprobe(&kp);
	if (ret)
		return ret == -EINVAL ? -ENOENT : ret;
	f->start = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	sprint_symbol(sym, f->start);
	plus = strrchr(sym, '+');
	slash = strrchr(sym, '/');
	if (!plus || !slash || sscanf(plus, "+%lx/%lx", &off, &size) != 2 ||
	    off)
		return -ENOENT;
	f->size = size;
	return 0;
}

/*
 * The modules list is not exported, but our own module sits on it:
 * walk from there, telling the list head apart by where it lives (module
 * structs are in module space, the head in the kernel image).
 */
static struct module *kc_module_get(const char *name)
{
	struct module *mod, *found = NULL;
	struct list_head *pos;

	/* the list is RCU-sched: list_add_rcu()/list_del_rcu() on changes */
	preempt_disable();
	for (pos = READ_ONCE(THIS_MODULE->list.next);
	     pos != &THIS_MODULE->list; pos = READ_ONCE(pos->next)) {
		if ((unsigned long)pos < MODULES_VADDR ||
		    (unsigned long)pos >= MODULES_END)
			continue;
		mod = list_entry(pos, struct module, list);
		if (mod->state == MODULE_STATE_UNFORMED)
			continue;
		if (!strcmp(mod->name, name) && try_module_get(mod)) {
			found = mod;
			break;
		}
	}
	if (!found && !strcmp(THIS_MODULE->name, name))
		found = NULL;
	preempt_enable();
	return found;
}

static int kc_module_funcs(struct module *mod, struct kc_func **out,
			   unsigned int *nr)
{
	unsigned long base = (unsigned long)mod->core_layout.base;
	unsigned long text_end = base + mod->core_layout.text_size;
	struct mod_kallsyms *ks;
	struct kc_func *funcs;
	unsigned int i, n = 0;

	preempt_disable();
	ks = rcu_dereference_sched(mod->kallsyms);
	funcs = kcalloc(ks->num_symtab, sizeof(*funcs), GFP_ATOMIC);
	if (!funcs) {
		preempt_enable();
		return -ENOMEM;
	}
	for (i = 0; i < ks->num_symtab; i++) {
		const Elf_Sym *sym = &ks->symtab[i];

		if (ELF_ST_TYPE(sym->st_info) != STT_FUNC || !sym->st_size)
			continue;
		if (sym->st_value < base || sym->st_value >= text_end)
			continue;
		funcs[n].start = sym->st_value;
		funcs[n].size = sym->st_size;
		n++;
	}
	preempt_enable();
	*out = funcs;
	*nr = n;
	return 0;
}

static int kc_target_load_module(struct kc_target *t, struct module *mod)
{
	struct kc_func *funcs;
	unsigned int nr;
	int ret;

	ret = kc_module_funcs(mod, &funcs, &nr);
	if (ret)
		return ret;
	ret = kc_target_build(t, funcs, nr);
	kfree(funcs);
	t->loaded = !ret;
	return ret;
}

static int kc_target_load(struct kc_target *t, struct module *mod)
{
	struct kc_func f;
	int ret;

	if (t->is_module)
		return kc_target_load_module(t, mod);
	ret = kc_resolve_function(t->spec, &f);
	if (ret)
		return ret;
	ret = kc_target_build(t, &f, 1);
	t->loaded = !ret;
	return ret;
}

static int kc_target_add(const char *spec)
{
	char modname[MODULE_NAME_LEN];
	struct module *mod = NULL;
	struct kc_target *t;
	int ret;

	if (kc_target_find(spec))
		return 0;
	if (kc_nr_targets >= KC_MAX_TARGETS)
		return -ENOSPC;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	strscpy(t->spec, spec, sizeof(t->spec));
	t->is_module = !strncmp(spec, "module:", 7);
	if (t->is_module && kc_target_module(t, modname, sizeof(modname)))
		mod = kc_module_get(modname);
	if (!t->is_module || mod)
		ret = kc_target_load(t, mod);
	else
		ret = 0;	/* loads later: the notifier builds it */
	if (mod)
		module_put(mod);
	if (ret) {
		kc_target_unbuild(t);
		kfree(t);
		return ret;
	}
	list_add_tail(&t->node, &kc_targets);
	kc_nr_targets++;
	return 0;
}

static void kc_target_del(struct kc_target *t)
{
	list_del(&t->node);
	kc_nr_targets--;
	kc_target_unbuild(t);
	kfree(t);
}

/* Publish the union of all targets' sites as the sampler's pool. */
static void kc_pool_rebuild(void)
{
	kc_sampler_pool_changed();
}

unsigned int kc_targets_collect(struct kc_site **pool, unsigned int max)
{
	struct kc_target *t;
	unsigned int i, n = 0;

	list_for_each_entry(t, &kc_targets, node)
		for (i = 0; i < t->nr_sites && n < max; i++)
			if (t->sites[i].registered)
				pool[n++] = &t->sites[i];
	return n;
}

unsigned int kc_targets_nr_sites(void)
{
	struct kc_target *t;
	unsigned int n = 0;

	list_for_each_entry(t, &kc_targets, node)
		n += t->nr_sites;
	return n;
}

bool kc_addr_is_probe(unsigned long addr, u8 *orig_byte)
{
	struct kc_target *t;
	unsigned int i;

	list_for_each_entry(t, &kc_targets, node) {
		for (i = 0; i < t->nr_sites; i++) {
			struct kc_site *s = &t->sites[i];

			if ((unsigned long)s->kp.addr == addr && s->registered) {
				*orig_byte = s->kp.opcode;
				return true;
			}
		}
	}
	return false;
}

/* Next token of a targets write; tokens are separated by , or space. */
static const char *kc_next_token(const char *p, const char *end, char *tok,
				 size_t size, int *err)
{
	size_t n = 0;

	while (p < end && (*p == ',' || isspace(*p)))
		p++;
	while (p < end && *p != ',' && !isspace(*p)) {
		if (n + 1 >= size) {
			*err = -EINVAL;
			return end;
		}
		tok[n++] = *p++;
	}
	tok[n] = '\0';
	return p;
}

static int kc_targets_validate(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	char tok[96];
	int err = 0, n = 0;

	while (p < end && !err) {
		p = kc_next_token(p, end, tok, sizeof(tok), &err);
		if (!tok[0] || err)
			continue;
		n++;
		if (!strcmp(tok, "clear"))
			continue;
		if (!kc_spec_valid(tok[0] == '-' || tok[0] == '+' ?
				   tok + 1 : tok))
			err = -EINVAL;
	}
	return err ? err : (n ? 0 : -EINVAL);
}

/* Every added function must resolve before anything changes. */
static int kc_targets_check_resolvable(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	char tok[96];
	struct kc_func f;
	int err = 0;

	while (p < end && !err) {
		const char *spec;

		p = kc_next_token(p, end, tok, sizeof(tok), &err);
		if (!tok[0] || tok[0] == '-' || !strcmp(tok, "clear"))
			continue;
		spec = tok[0] == '+' ? tok + 1 : tok;
		if (strncmp(spec, "module:", 7) && !kc_target_find(spec))
			err = kc_resolve_function(spec, &f);
	}
	return err;
}

static int kc_targets_apply(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	struct kc_target *t, *tmp;
	char tok[96];
	int err = 0, ret = 0;

	while (p < end && !err) {
		p = kc_next_token(p, end, tok, sizeof(tok), &err);
		if (!tok[0])
			continue;
		if (!strcmp(tok, "clear")) {
			list_for_each_entry_safe(t, tmp, &kc_targets, node)
				kc_target_del(t);
		} else if (tok[0] == '-') {
			t = kc_target_find(tok + 1);
			if (t)
				kc_target_del(t);
		} else {
			err = kc_target_add(tok[0] == '+' ? tok + 1 : tok);
		}
		if (err && !ret)
			ret = err;
	}
	return ret;
}

/* Callers hold kc_state_lock. */
static int kc_targets_update(const char *buf, size_t len)
{
	int ret;

	ret = kc_targets_validate(buf, len);
	if (!ret)
		ret = kc_targets_check_resolvable(buf, len);
	if (ret)
		return ret;
	kc_sampler_stop();
	ret = kc_targets_apply(buf, len);
	kc_pool_rebuild();
	if (kc_is_enabled())
		kc_sampler_start();
	return ret;
}

int kc_targets_write(const char *buf, size_t len)
{
	int ret;

	mutex_lock(&kc_state_lock);
	ret = kc_targets_update(buf, len);
	mutex_unlock(&kc_state_lock);
	return ret;
}

ssize_t kc_targets_show(char *buf, size_t size)
{
	struct kc_target *t;
	ssize_t n = 0;

	mutex_lock(&kc_state_lock);
	list_for_each_entry(t, &kc_targets, node)
		n += scnprintf(buf + n, size - n, "%s sites=%u%s\n", t->spec,
			       t->nr_sites, t->loaded ? "" : " (not loaded)");
	mutex_unlock(&kc_state_lock);
	return n;
}

static bool kc_target_uses_module(struct kc_target *t, struct module *mod)
{
	char name[MODULE_NAME_LEN];

	return kc_target_module(t, name, sizeof(name)) &&
	       !strcmp(name, mod->name);
}

static int kc_module_event(struct notifier_block *nb, unsigned long action,
			   void *data)
{
	struct module *mod = data;
	struct kc_target *t;
	bool changed = false;

	if (action != MODULE_STATE_COMING && action != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&kc_state_lock);
	kc_sampler_stop();
	list_for_each_entry(t, &kc_targets, node) {
		if (!kc_target_uses_module(t, mod))
			continue;
		changed = true;
		kc_target_unbuild(t);
		if (action == MODULE_STATE_COMING && kc_target_load(t, mod))
			kc_target_unbuild(t);
	}
	if (changed)
		kc_pool_rebuild();
	if (kc_is_enabled())
		kc_sampler_start();
	mutex_unlock(&kc_state_lock);
	return NOTIFY_DONE;
}

static struct notifier_block kc_module_nb = {
	.notifier_call = kc_module_event,
};

int kc_targets_init(const char *initial)
{
	int ret;

	ret = register_module_notifier(&kc_module_nb);
	if (ret)
		return ret;
	if (initial && *initial) {
		ret = kc_targets_write(initial, strlen(initial));
		if (ret) {
			pr_err("targets=%s: %d\n", initial, ret);
			unregister_module_notifier(&kc_module_nb);
		}
	}
	return ret;
}

void kc_targets_exit(void)
{
	struct kc_target *t, *tmp;

	unregister_module_notifier(&kc_module_nb);
	mutex_lock(&kc_state_lock);
	kc_sampler_stop();
	list_for_each_entry_safe(t, tmp, &kc_targets, node)
		kc_target_del(t);
	kc_pool_rebuild();
	mutex_unlock(&kc_state_lock);
}
