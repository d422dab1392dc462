// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark (not a test) of the decoder: instructions per second over the
 * executable sections of a distribution vmlinux (int3 padding skipped),
 * decoded linearly as the module walks a function, repeated for at least
 * two seconds.
 * Prints one line. usage: decoder_bench [vmlinux]; default: the oracle's
 * build/oracle/vmlinux-<release> ($KREL or the newest *-amd64 release),
 * extracted from /boot/vmlinuz-<release> when missing.
 */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <kcollider/x86_decode.h>

#ifndef KC_TOP
#define KC_TOP "."
#endif

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One pass over [p, p + len): returns the instructions decoded. */
static unsigned long pass(const u8 *p, size_t len, unsigned long *mem)
{
	unsigned long n = 0;
	struct kc_insn k;
	size_t off = 0;

	while (off < len) {
		/* int3 runs between functions are padding, not code */
		if (len - off > 1 && p[off] == 0xcc && p[off + 1] == 0xcc) {
			while (off < len && p[off] == 0xcc)
				off++;
			continue;
		}
		if (kc_decode(p + off, len - off, &k)) {
			off++;			/* data in text: resync */
			continue;
		}
		n++;
		*mem += !!(k.flags & KC_INSN_MEM);
		off += k.length;
	}
	return n;
}

static const char *default_image(char *buf, size_t len)
{
	const char *rel = getenv("KREL");
	char cmd[4096];
	FILE *f;

	if (!rel || !*rel) {
		f = popen("ls -d /lib/modules/*-amd64 2>/dev/null | sort -V | tail -n1 | xargs -r basename", "r");
		if (!f || !fgets(cmd, sizeof(cmd), f))
			return NULL;
		pclose(f);
		cmd[strcspn(cmd, "\n")] = 0;
		rel = strdup(cmd);
	}
	snprintf(buf, len, "%s/build/oracle/vmlinux-%s", KC_TOP, rel);
	if (!access(buf, R_OK))
		return buf;
	snprintf(cmd, sizeof(cmd),
		 "set -e; d=%s/build/oracle; mkdir -p $d; [ -f $d/extract-vmlinux ] || tar -xJf $(ls /usr/src/linux-source-6.1*.tar.xz | sort -V | tail -n1) -C $d --strip-components=2 --wildcards '*/scripts/extract-vmlinux'; sh $d/extract-vmlinux /boot/vmlinuz-%s > %s.tmp; mv %s.tmp %s",
		 KC_TOP, rel, buf, buf, buf);
	return system(cmd) ? NULL : buf;
}

int main(int argc, char **argv)
{
	char path[512];
	const char *image = argc > 1 ? argv[1] : default_image(path,
							       sizeof(path));
	unsigned long insns = 0, per_pass = 0, mem = 0, passes = 0;
	size_t i, nsec, bytes = 0;
	struct {
		const u8 *p;
		size_t len;
	} sec[32];
	unsigned int ns = 0;
	double t0, t;
	GElf_Shdr sh;
	Elf *e;
	int fd;

	if (!image) {
		fprintf(stderr, "decoder_bench: no vmlinux\n");
		return 1;
	}
	elf_version(EV_CURRENT);
	fd = open(image, O_RDONLY);
	e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_getshdrnum(e, &nsec)) {
		fprintf(stderr, "decoder_bench: %s: not an ELF image\n", image);
		return 1;
	}
	for (i = 1; i < nsec && ns < 32; i++) {
		Elf_Scn *scn = elf_getscn(e, i);
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			continue;
		sec[ns].p = d->d_buf;
		sec[ns++].len = d->d_size;
		bytes += d->d_size;
	}
	t0 = now();
	do {
		for (i = 0; i < ns; i++)
			insns += pass(sec[i].p, sec[i].len, &mem);
		if (!passes++)
			per_pass = insns;
		t = now();
	} while (t - t0 < 2.0);
	printf("decoder_bench: %.0f insns/s (%lu insns, %zu bytes of text in %s, %lu passes, %.0f%% with memory operands)\n",
	       insns / (t - t0), per_pass, bytes, image, passes,
	       100.0 * mem / insns);
	elf_end(e);
	close(fd);
	return 0;
}
