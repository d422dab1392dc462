// SPDX-License-Identifier: GPL-2.0
/*
 * What to sample: the target specs, as written to sysfs "targets", the
 * debugfs control file or the targets= parameter.
 *
 *   all            vmlinux and every module, including modules loaded later
 *   vmlinux        every function of the kernel image
 *   module:NAME    every function of a module (also one that loads later)
 *   GLOB           functions of any code object by name ("pipe_*")
 *   MOD:GLOB       functions of one module ("ext4:ext4_*")
 *   -SPEC          removes SPEC if it is a target, else excludes it
 *   +SPEC, clear   adds (or lifts an exclusion); drops every spec
 *
 * A write is all or nothing: it parses, a new site table is built for the
 * new specs, and a function spec that names no function fails the write
 * with -ENOENT, the old table rebuilt. The table itself is sites.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/glob.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kcollider.h"

#define KC_SPEC_LEN	80

enum kc_spec_kind {
	KC_SPEC_ALL,
	KC_SPEC_VMLINUX,
	KC_SPEC_MODULE,
	KC_SPEC_FUNC,
};

struct kc_spec {
	char text[KC_SPEC_LEN];		/* as written, without its sign */
	bool exclude;
	u8 kind;
	char object[MODULE_NAME_LEN];	/* "" = any code object */
	char func[KC_SPEC_LEN];		/* glob, KC_SPEC_FUNC only */
};

struct kc_spec_list {
	unsigned int n;
	struct kc_spec spec[KC_MAX_SPECS];
	const char *exact[KC_MAX_SPECS];	/* the site filter's */
};

static struct kc_spec_list *kc_specs;

static bool kc_name_char(char c, bool glob)
{
	return isalnum(c) || c == '_' || c == '.' ||
	       (glob && (c == '*' || c == '?' || c == '[' || c == ']'));
}

static bool kc_name_valid(const char *s, size_t len, bool glob)
{
	size_t i;

	if (!len)
		return false;
	for (i = 0; i < len; i++)
		if (!kc_name_char(s[i], glob))
			return false;
	return true;
}

/* Parse one spec without its sign; false if it is malformed. */
static bool kc_spec_parse(const char *text, struct kc_spec *s)
{
	const char *colon = strchr(text, ':');
	size_t len = strlen(text);

	memset(s, 0, sizeof(*s));
	if (!len || len >= sizeof(s->text))
		return false;
	strscpy(s->text, text, sizeof(s->text));
	if (!strcmp(text, "all")) {
		s->kind = KC_SPEC_ALL;
		return true;
	}
	if (!strcmp(text, "vmlinux")) {
		s->kind = KC_SPEC_VMLINUX;
		strscpy(s->object, "vmlinux", sizeof(s->object));
		return true;
	}
	if (!colon) {
		s->kind = KC_SPEC_FUNC;
		strscpy(s->func, text, sizeof(s->func));
		return kc_name_valid(text, len, true);
	}
	if (strchr(colon + 1, ':') || colon - text >= MODULE_NAME_LEN)
		return false;
	if (!strncmp(text, "module:", 7)) {
		s->kind = KC_SPEC_MODULE;
		strscpy(s->object, text + 7, sizeof(s->object));
		return kc_name_valid(s->object, strlen(s->object), false);
	}
	s->kind = KC_SPEC_FUNC;
	memcpy(s->object, text, colon - text);
	strscpy(s->func, colon + 1, sizeof(s->func));
	return kc_name_valid(s->object, colon - text, false) &&
	       kc_name_valid(s->func, strlen(s->func), true);
}

static bool kc_spec_matches(const struct kc_spec *s, const char *object,
			    const char *func)
{
	if (s->object[0] && strcmp(s->object, object))
		return false;
	return s->kind != KC_SPEC_FUNC || glob_match(s->func, func);
}

/* The site table's question: which specs does this function match? */
static u64 kc_specs_match(void *ctx, const char *object, const char *func)
{
	const struct kc_spec_list *l = ctx;
	u64 mask = 0;
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (kc_spec_matches(&l->spec[i], object, func))
			mask |= BIT_ULL(i);
	return mask;
}

static bool kc_spec_may_match(const struct kc_spec *s, const char *object)
{
	return !s->exclude && (!s->object[0] || !strcmp(s->object, object));
}

static bool kc_spec_exact(const struct kc_spec *s)
{
	return s->kind == KC_SPEC_FUNC && !strpbrk(s->func, "*?[");
}

/*
 * Exact vmlinux names are looked up one by one instead of walking every
 * kernel function: a plain list of functions is as quick to set as it
 * was when each was a kprobe.
 */
static void kc_filter_exact(struct kc_spec_list *l, struct kc_site_filter *f)
{
	unsigned int i, n = 0;

	for (i = 0; i < l->n; i++) {
		const struct kc_spec *s = &l->spec[i];

		if (!kc_spec_may_match(s, "vmlinux"))
			continue;
		if (!kc_spec_exact(s))
			return;
		l->exact[n++] = s->func;
	}
	f->exact = l->exact;
	f->nr_exact = n;
}

static void kc_filter_of(struct kc_spec_list *l, struct kc_site_filter *f)
{
	unsigned int i;

	memset(f, 0, sizeof(*f));
	f->match = kc_specs_match;
	f->ctx = l;
	f->percpu = READ_ONCE(kc_settings.sample_percpu);
	for (i = 0; i < l->n; i++) {
		if (!l->spec[i].exclude)
			f->positive |= BIT_ULL(i);
		if (kc_spec_may_match(&l->spec[i], "vmlinux"))
			f->vmlinux = true;
	}
	if (f->vmlinux)
		kc_filter_exact(l, f);
}

static int kc_spec_find(const struct kc_spec_list *l, const char *text)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->spec[i].text, text))
			return i;
	return -1;
}

static void kc_spec_remove(struct kc_spec_list *l, int i)
{
	memmove(&l->spec[i], &l->spec[i + 1],
		(l->n - i - 1) * sizeof(l->spec[0]));
	l->n--;
}

/* Next token of a write; tokens are separated by ',' or white space. */
static const char *kc_next_token(const char *p, const char *end, char *tok,
				 size_t size, int *err)
{
	size_t n = 0;

	while (p < end && (*p == ',' || isspace(*p)))
		p++;
	while (p < end && *p != ',' && !isspace(*p)) {
		if (n + 1 >= size || !*p) {
			*err = -EINVAL;
			return end;
		}
		tok[n++] = *p++;
	}
	tok[n] = '\0';
	return p;
}

static int kc_apply_token(struct kc_spec_list *l, const char *tok)
{
	bool exclude = tok[0] == '-';
	struct kc_spec s;
	int i;

	if (!strcmp(tok, "clear")) {
		l->n = 0;
		return 0;
	}
	if (tok[0] == '-' || tok[0] == '+')
		tok++;
	if (!kc_spec_parse(tok, &s))
		return -EINVAL;
	i = kc_spec_find(l, s.text);
	if (i >= 0) {
		/* "-X" of a target, "+X" of an exclusion: it goes */
		if (l->spec[i].exclude != exclude)
			kc_spec_remove(l, i);
		return 0;
	}
	if (l->n >= KC_MAX_SPECS)
		return -ENOSPC;
	s.exclude = exclude;
	l->spec[l->n++] = s;
	return 0;
}

static int kc_apply_write(struct kc_spec_list *l, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	char tok[KC_SPEC_LEN + 1];
	int err = 0, n = 0;

	while (p < end && !err) {
		p = kc_next_token(p, end, tok, sizeof(tok), &err);
		if (err || !tok[0])
			continue;
		n++;
		err = kc_apply_token(l, tok);
	}
	return err ?: (n ? 0 : -EINVAL);
}

static bool kc_specs_equal(const struct kc_spec_list *a,
			   const struct kc_spec_list *b)
{
	unsigned int i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->spec[i].text, b->spec[i].text) ||
		    a->spec[i].exclude != b->spec[i].exclude)
			return false;
	return true;
}

static int kc_specs_build(struct kc_spec_list *l)
{
	struct kc_site_filter f;

	kc_filter_of(l, &f);
	return kc_sites_rebuild(&f);
}

/* A function spec new in @l must name at least one function. */
static int kc_specs_check_new(const struct kc_spec_list *l,
			      const struct kc_spec_list *old)
{
	unsigned int i;
	u32 sites, funcs;
	bool present;

	for (i = 0; i < l->n; i++) {
		const struct kc_spec *s = &l->spec[i];

		if (s->exclude || s->kind != KC_SPEC_FUNC ||
		    kc_spec_find(old, s->text) >= 0)
			continue;
		kc_sites_counts(i, NULL, &sites, &funcs, &present);
		if (!funcs)
			return -ENOENT;
	}
	return 0;
}

/* Callers hold kc_state_lock. */
static int kc_targets_update(const char *buf, size_t len)
{
	struct kc_spec_list *l;
	bool on = kc_is_enabled();
	int ret;

	l = kmemdup(kc_specs, sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	ret = kc_apply_write(l, buf, len);
	if (ret || kc_specs_equal(l, kc_specs))
		goto out;
	if (on)
		kc_sampler_stop();
	ret = kc_specs_build(l);
	if (!ret)
		ret = kc_specs_check_new(l, kc_specs);
	if (ret) {
		kc_specs_build(kc_specs);
	} else {
		swap(l, kc_specs);
		kc_pool_flush();
	}
	if (on && kc_sampler_start())
		kc_sampling_failed();
out:
	kfree(l);
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
	unsigned int i;
	u32 sites, funcs;
	ssize_t n = 0;
	bool present;

	mutex_lock(&kc_state_lock);
	for (i = 0; i < kc_specs->n; i++) {
		const struct kc_spec *s = &kc_specs->spec[i];

		kc_sites_counts(i, s->kind == KC_SPEC_MODULE ? s->object : NULL,
				&sites, &funcs, &present);
		if (s->exclude)
			n += scnprintf(buf + n, size - n, "-%s functions=%u\n",
				       s->text, funcs);
		else
			n += scnprintf(buf + n, size - n, "%s sites=%u%s\n",
				       s->text, sites,
				       s->kind == KC_SPEC_MODULE && !present ?
				       " (not loaded)" : "");
	}
	mutex_unlock(&kc_state_lock);
	return n;
}

static bool kc_specs_want_module(const char *name)
{
	unsigned int i;

	for (i = 0; i < kc_specs->n; i++)
		if (kc_spec_may_match(&kc_specs->spec[i], name))
			return true;
	return false;
}

static int kc_module_event(struct notifier_block *nb, unsigned long action,
			   void *data)
{
	struct module *mod = data;
	struct kc_site_filter f;
	unsigned long start, end;

	if (mod == THIS_MODULE)
		return NOTIFY_DONE;
	mutex_lock(&kc_state_lock);
	if (action == MODULE_STATE_COMING && kc_specs_want_module(mod->name)) {
		kc_filter_of(kc_specs, &f);
		if (kc_sites_add_module(mod, &f))
			pr_warn("module %s: no sites (out of memory)\n",
				mod->name);
	} else if (action == MODULE_STATE_GOING) {
		kc_sites_del_module(mod->name, &start, &end);
		/*
		 * Its whole text, not only its sites': probes of a module the
		 * targets dropped earlier wait in the pool as idle entries
		 * until reaped, with a writable alias of the text going away.
		 */
		start = (unsigned long)mod->core_layout.base;
		kc_pool_drop_range(start, start + mod->core_layout.size);
	}
	mutex_unlock(&kc_state_lock);
	return NOTIFY_DONE;
}

static struct notifier_block kc_module_nb = {
	.notifier_call = kc_module_event,
};

int kc_targets_init(void)
{
	int ret;

	kc_specs = kzalloc(sizeof(*kc_specs), GFP_KERNEL);
	if (!kc_specs)
		return -ENOMEM;
	ret = register_module_notifier(&kc_module_nb);
	if (ret) {
		kfree(kc_specs);
		kc_specs = NULL;
	}
	return ret;
}

/* After the sampler is gone: nothing picks sites any more. */
void kc_targets_exit(void)
{
	unregister_module_notifier(&kc_module_nb);
	kfree(kc_specs);
	kc_specs = NULL;
}
