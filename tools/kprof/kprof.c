// SPDX-License-Identifier: GPL-2.0
/*
 * kprof: a QEMU TCG plugin that counts the guest kernel's instructions per
 * translation block, for make profile (scripts/host/profile.sh).
 *
 *   qemu-system-x86_64 ... -plugin /path/libkprof.so,out=FILE
 *
 * At exit it writes one line per kernel block that ran:
 *   VADDR INSNS EXECUTIONS
 * (hex address, instructions in the block, times it ran). The host maps
 * each block to the kernel function holding it (System.map) and takes two
 * runs apart, so that a call's instructions are counted function by
 * function, boot and setup left out. One vCPU: the counters are not
 * atomic.
 *
 * QEMU's plugin API is declared here, the few calls this plugin makes, as
 * QEMU 7.2 (Debian 12) exports them (API version 1): Debian packages no
 * qemu-plugin.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

/* The kernel's text is mapped from here up (x86-64, no KASLR) */
#define KERNEL_BASE	0xffffffff80000000ull
#define SLOTS		(1u << 20)

struct block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t count;
};

static struct block *blocks;
static const char *out_path;

static struct block *block_of(uint64_t vaddr, uint64_t insns)
{
	uint64_t h = (vaddr ^ (vaddr >> 17) ^ insns) * 0x9e3779b97f4a7c15ull;
	unsigned int i, slot;

	for (i = 0; i < SLOTS; i++) {
		slot = (h + i) & (SLOTS - 1);
		if (!blocks[slot].vaddr) {
			blocks[slot].vaddr = vaddr;
			blocks[slot].insns = insns;
			return &blocks[slot];
		}
		if (blocks[slot].vaddr == vaddr && blocks[slot].insns == insns)
			return &blocks[slot];
	}
	return NULL;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	(void)id;
	if (vaddr < KERNEL_BASE)
		return;
	b = block_of(vaddr, qemu_plugin_tb_n_insns(tb));
	if (b)
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
							 &b->count, 1);
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
	FILE *f = fopen(out_path, "w");
	unsigned int i;

	(void)id;
	(void)userdata;
	if (!f) {
		perror(out_path);
		return;
	}
	for (i = 0; i < SLOTS; i++)
		if (blocks[i].count)
			fprintf(f, "%016" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				blocks[i].vaddr, blocks[i].insns, blocks[i].count);
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	if (!out_path) {
		fprintf(stderr, "kprof: give out=FILE\n");
		return -1;
	}
	blocks = calloc(SLOTS, sizeof(*blocks));
	if (!blocks)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
