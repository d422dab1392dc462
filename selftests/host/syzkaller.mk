# The reimplemented syzkaller report parser, on fixtures and the CLI.
CFLAGS_syzkaller_test := -DKC_TOP=\"$(TOP)\"
