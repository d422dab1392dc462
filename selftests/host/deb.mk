CFLAGS_deb_test := -DKC_TOP=\"$(TOP)\"
