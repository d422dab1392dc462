// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM: field names through BTF (issue 13) on the detector's real reports.
 * F1 races on a nested field of an object from its own slab cache
 * ("kc_f1_obj"): "kcollider report -D --btf" must name the struct from the
 * cache and the member from the offset; R7's object is kmalloc'd, and its
 * type comes from the racing functions' pointer argument. kc_planted is
 * built without BTF (out of tree, no vmlinux in the headers), so its BTF is
 * made here with pahole, split on this kernel's /sys/kernel/btf/vmlinux.
 * Offsets and sizes are the module's own (its facts file), not constants.
 */
#include "kselftest_harness.h"
#include "vm_reports.h"

static char out[1 << 20], btf_path[512];

static int run(const char *cmd)
{
	return kc_run(cmd, out, sizeof(out));
}

/* A number from kc_planted's facts file. */
static long fact(const char *name)
{
	static char facts[4096];
	char key[64];
	const char *p;

	if (kc_read_file("/sys/kernel/debug/kc_planted/facts", facts, sizeof(facts)) < 0)
		return -1;
	snprintf(key, sizeof(key), "\n%s ", name);
	p = strstr(facts, key);
	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

FIXTURE(btf) {
	int unused;
};

FIXTURE_SETUP(btf)
{
	char cmd[8192];
	const char *tmp = getenv("TMPDIR");

	if (!kc_in_vm())
		SKIP(return, "not inside the kcollider test VM");
	/*
	 * A failed setup skips the teardown: check first, before anything
	 * is loaded. A kernel built without BTF (the debug kernel: no DWARF)
	 * cannot run these: a skip, counted as one, never as a pass.
	 */
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		SKIP(return, "this kernel has no BTF (/sys/kernel/btf/vmlinux): %s",
		     strerror(errno));
	ASSERT_EQ(0, kc_load_module(kc_module_path(), NULL))
		TH_LOG("load kcollider: %s", strerror(errno));
	if (kc_load_module(planted_path(), NULL) && errno != EEXIST) {
		kc_unload_module("kcollider");
		ASSERT_TRUE(false) TH_LOG("load kc_planted: %s", strerror(errno));
	}
	snprintf(btf_path, sizeof(btf_path), "%s/kc_planted.btf", tmp ? tmp : "/tmp");
	snprintf(cmd, sizeof(cmd),
		 "pahole --btf_base /sys/kernel/btf/vmlinux --btf_encode_detached=%s %s 2>&1",
		 btf_path, planted_path());
	if (run(cmd)) {
		kc_unload_module("kcollider");
		kc_unload_module("kc_planted");
		ASSERT_TRUE(false) TH_LOG("%s", out);
	}
}

FIXTURE_TEARDOWN(btf)
{
	if (!kc_in_vm())
		return;
	kc_write_attr("enabled", "0");
	kc_unload_module("kcollider");
	kc_unload_module("kc_planted");
}

static void check_field(struct __test_metadata *_metadata, const char *type,
			const char *field, long offset, long size,
			const char *cache, const char *by)
{
	char cmd[8192], expect[512];

	snprintf(cmd, sizeof(cmd), "%s/user/kcollider -j report -D --btf /sys/kernel/btf --btf %s",
		 kc_top(), btf_path);
	ASSERT_EQ(0, run(cmd)) TH_LOG("%s", out);
	snprintf(expect, sizeof(expect),
		 "\"object\":{\"type\":\"%s\",\"field\":\"%s\",\"field_offset\":%ld,\"field_size\":%ld,\"offset\":%ld,\"cache\":\"%s\",\"by\":\"%s\"}",
		 type, field, offset, size, offset, cache, by);
	EXPECT_NE(NULL, strstr(out, expect)) TH_LOG("want %s in\n%.3000s", expect, out);
}

TEST_F_TIMEOUT(btf, f1_named_cache_nested_field, 120)
{
	long off, size;

	/* 6.1's harness runs the body after a SKIP in the setup */
	if (_metadata->skip)
		return;
	off = fact("f1_offset");
	size = fact("f1_field_size");
	ASSERT_GT(off, 0);
	ASSERT_GT(size, 0);
	ASSERT_EQ(0, kc_write_attr("targets", "kc_f1_inc_writes kc_f1_read_writes"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until_report("f1", "kcollider: object: slab cache=kc_f1_obj ", 30))
		TH_LOG("%.2000s", read_reports());
	check_field(_metadata, "struct kc_f1_obj", "stats.writes", off, size,
		    "kc_f1_obj", "cache-name");
}

TEST_F_TIMEOUT(btf, r7_kmalloc_object_typed_by_the_arguments, 120)
{
	long off, ksize;
	char cache[32];

	if (_metadata->skip)
		return;
	off = fact("r7_offset");
	ksize = fact("r7_ksize");
	ASSERT_GT(off, 0);
	ASSERT_GT(ksize, 0);
	snprintf(cache, sizeof(cache), "kmalloc-%ld", ksize);
	ASSERT_EQ(0, kc_write_attr("targets", "kc_r7_inc_field kc_r7_read_field"));
	ASSERT_EQ(0, kc_enable());
	ASSERT_TRUE(run_until_report("r7", "kcollider: object: slab cache=kmalloc-", 30))
		TH_LOG("%.2000s", read_reports());
	/* "field" is an int: four bytes, as the report's access size says. */
	check_field(_metadata, "struct kc_r7_obj", "field", off, sizeof(int),
		    cache, "arguments");
}

TEST_HARNESS_MAIN
