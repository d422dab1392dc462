# SPDX-License-Identifier: GPL-2.0
#
# Sourced by debug-kernel.sh and kcsan-kernel.sh: a 6.1 test kernel from
# Debian's linux-source-6.1, tinyconfig plus the caller's options, built
# once outside the clone in a directory named after the hash of those
# options, the source tarball and the tools.
#
# The caller sets: tag (for messages), deps_hint (how to install what is
# missing), cache, jobs, tarball, and defines options() (the config lines:
# OPTION, -OPTION, OPTION=value, OPTION="string"; # starts a comment).

die() { echo "$tag: $*" >&2; exit 1; }

kernel_key() {
	{
		options
		stat -L -c '%n %s %Y' "$tarball"
		${CC:-gcc} --version | head -n1
		pahole --version 2> /dev/null || echo "no pahole"
	} | sha256sum | cut -c1-12
}

# The options without comments and blank lines, one per line.
option_lines() {
	local line

	options | while read -r line; do
		line=${line%%#*}
		line=$(echo $line)
		[ -z "$line" ] || echo "$line"
	done
}

kmake() { nice -n 10 make -C "$src" O="$out" "$@" >> "$log" 2>&1; }

configure() {
	local line v bad=0
	local -a args=()

	if ! kmake tinyconfig; then
		tail -n 30 "$log" >&2; die "tinyconfig failed"
	fi
	while read -r line; do
		case $line in
		-*) args+=(--disable "${line#-}") ;;
		*=\"*) v=${line#*=}; v=${v#\"}; args+=(--set-str "${line%%=*}" "${v%\"}") ;;
		*=*) args+=(--set-val "${line%%=*}" "${line#*=}") ;;
		*) args+=(--enable "$line") ;;
		esac
	done < <(option_lines)
	"$src/scripts/config" --file "$out/.config" "${args[@]}"
	kmake olddefconfig || { tail -n 30 "$log" >&2; die "olddefconfig failed"; }

	# Every option asked for must have survived olddefconfig (a missing
	# dependency silently drops one).
	while read -r line; do
		case $line in
		-*) grep -qx "CONFIG_${line#-}=[ym]" "$out/.config" && { echo "$tag: CONFIG_${line#-} still set" >&2; bad=1; } ;;
		*=*) grep -qx "CONFIG_$line" "$out/.config" || { echo "$tag: CONFIG_$line not taken" >&2; bad=1; } ;;
		*) grep -qx "CONFIG_$line=y" "$out/.config" || { echo "$tag: CONFIG_$line not taken" >&2; bad=1; } ;;
		esac
	done < <(option_lines)
	[ $bad = 0 ] || die "the config lost options (see above; $out/.config)"
}

# The source, extracted once per tarball (every script here shares it),
# into $src. The caller holds a lock or extracts to a fresh name.
kernel_source() {
	src=$cache/src-$(stat -L -c '%s-%Y' "$tarball")
	if [ ! -e "$src/.kc-extracted" ]; then
		echo "$tag: extracting $tarball" >&2
		rm -rf "$src" "$src.tmp"
		mkdir -p "$src.tmp"
		tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
		touch "$src.tmp/.kc-extracted"
		mv "$src.tmp" "$src"
	fi
}

# Builds the tree @1 unless it is built; prints its path.
kernel_build() {
	local start

	out=$1
	[ -e "$out/.kc-built" ] && { echo "$out"; return 0; }
	mkdir -p "$cache"
	exec 9> "$out.lock"
	flock 9
	[ -e "$out/.kc-built" ] && { echo "$out"; return 0; }

	for tool in flex bison bc pahole; do
		command -v "$tool" > /dev/null || die "$tool not found ($deps_hint)"
	done

	kernel_source

	mkdir -p "$out"
	log=$out/build.log
	start=$(date +%s)
	echo "$tag: building in $out (log: $log)" >&2

	# An interrupted build resumes where it stopped (same config: same hash).
	if [ ! -e "$out/.kc-configured" ]; then
		rm -f "$out/.config" "$log"
		configure
		touch "$out/.kc-configured"
	fi

	if ! kmake -j"$jobs" bzImage modules_prepare; then
		grep -m5 -B2 -A10 'error\|Error' "$log" >&2 || tail -n 40 "$log" >&2
		die "the kernel build failed (log: $log)"
	fi
	# No "make modules" ran: the symbol versions out-of-tree modules link
	# against are in vmlinux.symvers only.
	cp "$out/vmlinux.symvers" "$out/Module.symvers"
	echo "$tag: built $(cat "$out/include/config/kernel.release") in $(($(date +%s) - start)) s" >&2
	touch "$out/.kc-built"
	echo "$out"
}
