# SPDX-License-Identifier: GPL-2.0
LDLIBS_detector_test := -lpthread
