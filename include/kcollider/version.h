/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KCOLLIDER_VERSION_H
#define KCOLLIDER_VERSION_H

#define KCOLLIDER_VERSION "0.1.0"

/* Where the module publishes its knobs; the tools and tests read it. */
#define KCOLLIDER_SYSFS_DIR "/sys/kernel/kcollider"
/* Its counters, report log and control file (debugfs mounted as usual). */
#define KCOLLIDER_DEBUGFS_DIR "/sys/kernel/debug/kcollider"

#endif /* KCOLLIDER_VERSION_H */
