// SPDX-License-Identifier: GPL-2.0
/*
 * Writable aliases of kernel text: the text itself is mapped read-only,
 * so the pool writes its int3s through a second mapping of the same page.
 * Mapping a page costs a vmap and, when it goes, a vunmap and a TLB flush:
 * a new visit paid both, where a visit again reused its entry's mapping.
 * So the mappings are kept: vmlinux's text is mapped once, as a whole,
 * while the detector is loaded; a module's text pages are mapped as they
 * are first needed and kept, unused, until their module goes or the cache
 * needs the room. The pool's entries count their users.
 *
 * Sleeps: every caller is in process context, none in int3 or #DB.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "kcollider.h"

/* Module text pages kept mapped; more users than this map uncached. */
#define KC_TEXTMAP_PAGES	128

struct kc_textmap_page {
	unsigned long text;		/* the text page's address, 0: free */
	struct page *page;		/* what it mapped to when mapped */
	void *alias;
	unsigned int users;
	unsigned long used;		/* when last taken, for eviction */
};

static DEFINE_MUTEX(kc_textmap_lock);
static struct kc_textmap_page kc_textmap[KC_TEXTMAP_PAGES];
static unsigned long kc_textmap_clock;
static unsigned long kc_textmap_hits;
static unsigned long kc_textmap_maps;

/* vmlinux's text, mapped whole, or not at all */
static unsigned long kc_kernel_text, kc_kernel_text_end;
static u8 *kc_kernel_alias;

static bool kc_in_module_area(unsigned long addr)
{
	return addr >= MODULES_VADDR && addr < MODULES_END;
}

static bool kc_in_kernel_image(unsigned long addr)
{
	return addr >= __START_KERNEL_map &&
	       addr < __START_KERNEL_map + KERNEL_IMAGE_SIZE;
}

/* The page holding @addr's text, or NULL where the pool never writes. */
static struct page *kc_text_page(unsigned long addr)
{
	if (kc_in_module_area(addr))
		return vmalloc_to_page((void *)addr);
	if (kc_in_kernel_image(addr))
		return virt_to_page((void *)addr);
	return NULL;
}

static void *kc_map_one(struct page *page)
{
	return vmap(&page, 1, VM_MAP, PAGE_KERNEL);
}

/*
 * Under the lock: the entry to map @text into. A stale mapping of the same
 * address (its module went, another came) goes first, then a free entry,
 * then the least recently taken unused one.
 */
static struct kc_textmap_page *kc_textmap_victim(unsigned long text)
{
	struct kc_textmap_page *e, *victim = NULL;
	int i;

	for (i = 0; i < KC_TEXTMAP_PAGES; i++) {
		e = &kc_textmap[i];
		if (e->users)
			continue;
		if (e->text == text)
			return e;
		if (!victim || (victim->text && (!e->text ||
						 time_before(e->used,
							     victim->used))))
			victim = e;
	}
	return victim;
}

/* Under the lock: @text's entry, mapped to @page, or NULL. */
static struct kc_textmap_page *kc_textmap_find(unsigned long text,
					       struct page *page)
{
	struct kc_textmap_page *e;
	int i;

	for (i = 0; i < KC_TEXTMAP_PAGES; i++) {
		e = &kc_textmap[i];
		if (e->text == text && e->page == page) {
			kc_textmap_hits++;
			return e;
		}
	}
	e = kc_textmap_victim(text);
	if (!e)
		return NULL;
	if (e->text)
		vunmap(e->alias);
	e->text = 0;
	e->alias = kc_map_one(page);
	if (!e->alias)
		return NULL;
	e->text = text;
	e->page = page;
	kc_textmap_maps++;
	return e;
}

/*
 * A writable alias of the text byte at @addr, or NULL; each alias goes back
 * with kc_textmap_put().
 */
u8 *kc_textmap_get(unsigned long addr)
{
	unsigned long text = addr & PAGE_MASK;
	struct kc_textmap_page *e;
	struct page *page;
	void *alias;

	if (kc_kernel_alias && addr >= kc_kernel_text &&
	    addr < kc_kernel_text_end)
		return kc_kernel_alias + (addr - kc_kernel_text);
	page = kc_text_page(addr);
	if (!page)
		return NULL;
	mutex_lock(&kc_textmap_lock);
	e = kc_textmap_find(text, page);
	if (e) {
		e->users++;
		e->used = ++kc_textmap_clock;
		alias = e->alias;
	} else {
		alias = kc_map_one(page);
	}
	mutex_unlock(&kc_textmap_lock);
	return alias ? (u8 *)alias + offset_in_page(addr) : NULL;
}

void kc_textmap_put(u8 *alias)
{
	unsigned long base = (unsigned long)alias & PAGE_MASK;
	bool cached = false;
	int i;

	if (kc_kernel_alias && alias >= kc_kernel_alias &&
	    alias < kc_kernel_alias + (kc_kernel_text_end - kc_kernel_text))
		return;
	mutex_lock(&kc_textmap_lock);
	for (i = 0; i < KC_TEXTMAP_PAGES && !cached; i++) {
		struct kc_textmap_page *e = &kc_textmap[i];

		if (e->text && (unsigned long)e->alias == base) {
			WARN_ON_ONCE(!e->users);
			e->users--;
			cached = true;
		}
	}
	mutex_unlock(&kc_textmap_lock);
	if (!cached)
		vunmap((void *)base);
}

/* Text in [@start, @end) goes: its unused mappings with it. */
void kc_textmap_forget(unsigned long start, unsigned long end)
{
	int i;

	mutex_lock(&kc_textmap_lock);
	for (i = 0; i < KC_TEXTMAP_PAGES; i++) {
		struct kc_textmap_page *e = &kc_textmap[i];

		if (!e->text || e->users || e->text + PAGE_SIZE <= start ||
		    e->text >= end)
			continue;
		vunmap(e->alias);
		e->text = 0;
		e->alias = NULL;
		e->used = 0;
	}
	mutex_unlock(&kc_textmap_lock);
}

void kc_textmap_show(struct seq_file *m)
{
	unsigned int mapped = 0;
	int i;

	mutex_lock(&kc_textmap_lock);
	for (i = 0; i < KC_TEXTMAP_PAGES; i++)
		mapped += !!kc_textmap[i].text;
	mutex_unlock(&kc_textmap_lock);
	seq_printf(m, "textmap_kernel_pages %lu\ntextmap_module_pages %u\n"
		   "textmap_module_maps %lu\ntextmap_module_hits %lu\n",
		   kc_kernel_alias ?
		   (kc_kernel_text_end - kc_kernel_text) >> PAGE_SHIFT : 0,
		   mapped, READ_ONCE(kc_textmap_maps),
		   READ_ONCE(kc_textmap_hits));
}

/* vmlinux's text, one alias; without it each page is mapped as needed. */
static void kc_textmap_map_kernel(void)
{
	unsigned long lo = kc_lookup_symbol("_stext") & PAGE_MASK;
	unsigned long hi = PAGE_ALIGN(kc_lookup_symbol("_etext"));
	unsigned int n, i;
	struct page **pages;

	if (!lo || hi <= lo || !kc_in_kernel_image(lo) ||
	    !kc_in_kernel_image(hi - 1))
		return;
	n = (hi - lo) >> PAGE_SHIFT;
	pages = kvmalloc_array(n, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return;
	for (i = 0; i < n; i++)
		pages[i] = virt_to_page((void *)(lo + i * PAGE_SIZE));
	kc_kernel_alias = vmap(pages, n, VM_MAP, PAGE_KERNEL);
	kvfree(pages);
	if (!kc_kernel_alias) {
		pr_info("vmlinux's text not mapped whole: page by page\n");
		return;
	}
	kc_kernel_text = lo;
	kc_kernel_text_end = hi;
}

void kc_textmap_init(void)
{
	kc_textmap_map_kernel();
}

/* Once no alias is in use. */
void kc_textmap_exit(void)
{
	int i;

	for (i = 0; i < KC_TEXTMAP_PAGES; i++) {
		struct kc_textmap_page *e = &kc_textmap[i];

		WARN_ON_ONCE(e->users);
		if (e->text)
			vunmap(e->alias);
		e->text = 0;
	}
	if (kc_kernel_alias)
		vunmap(kc_kernel_alias);
	kc_kernel_alias = NULL;
}
