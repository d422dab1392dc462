// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/kcollider/: "reports", the report log the CLI reads
 * without parsing the console, and "control", which takes the words
 * syzkaller writes to KCSAN's control file ("on", "off") plus target specs.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include <kcollider/parse.h>
#include "kcollider.h"

static struct dentry *kc_debugfs_dir;

static int kc_reports_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, kc_report_log_show, NULL, 64 * 4096);
}

static const struct file_operations kc_reports_fops = {
	.owner = THIS_MODULE,
	.open = kc_reports_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int kc_control_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", kc_is_enabled() ? "on" : "off");
	return 0;
}

static int kc_control_open(struct inode *inode, struct file *file)
{
	return single_open(file, kc_control_show, NULL);
}

static ssize_t kc_control_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	char buf[128];
	size_t len;
	bool on;
	int ret;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	len = kc_parse_strip_len(buf, count);
	if (!kc_parse_bool(buf, count, &on))
		ret = kc_set_enabled(on);
	else if (len && (buf[0] == '+' || buf[0] == '-') &&
		 kc_parse_ascii_text(buf, len))
		ret = kc_targets_write(buf, len);
	else
		ret = -EINVAL;
	return ret ? ret : count;
}

static const struct file_operations kc_control_fops = {
	.owner = THIS_MODULE,
	.open = kc_control_open,
	.read = seq_read,
	.write = kc_control_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int kc_latency_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, kc_watch_latency_show, NULL, 64 * 1024);
}

static const struct file_operations kc_latency_fops = {
	.owner = THIS_MODULE,
	.open = kc_latency_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int kc_visited_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, kc_pool_visited_show, NULL, 8192);
}

static const struct file_operations kc_visited_fops = {
	.owner = THIS_MODULE,
	.open = kc_visited_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

int kc_debugfs_init(void)
{
	kc_debugfs_dir = debugfs_create_dir("kcollider", NULL);
	debugfs_create_file("reports", 0400, kc_debugfs_dir, NULL,
			    &kc_reports_fops);
	debugfs_create_file("control", 0600, kc_debugfs_dir, NULL,
			    &kc_control_fops);
	debugfs_create_file("arm_latency_ns", 0400, kc_debugfs_dir, NULL,
			    &kc_latency_fops);
	debugfs_create_file("visited", 0400, kc_debugfs_dir, NULL,
			    &kc_visited_fops);
	return 0;
}

void kc_debugfs_exit(void)
{
	debugfs_remove_recursive(kc_debugfs_dir);
	kc_debugfs_dir = NULL;
}
