# SPDX-License-Identifier: GPL-2.0
LDLIBS_detector_test := -lpthread
LDLIBS_fuzz_attrs_test := -lpthread
