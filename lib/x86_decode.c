// SPDX-License-Identifier: GPL-2.0
int kc_stub_decoder(void);
int kc_stub_decoder(void)
{
	return 0;
}
