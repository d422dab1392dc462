# The top-level Makefile, install, DKMS tree, man pages and completion.
CFLAGS_make_test := -DKC_TOP=\"$(TOP)\"
