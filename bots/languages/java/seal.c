/* Card Arena's seal for a Java bot's JVM: loaded by Host.java (System.load) in the sandbox
 * once the JVM has made the socket pair its file channels need, and before the bot's class
 * is loaded. It adds to every thread of the process (SECCOMP_FILTER_FLAG_TSYNC) a seccomp
 * filter that refuses making pipes and sockets: each numbers its inode from one counter of
 * the machine's, which a process could move for the next one to read (docs/sandbox.md,
 * "Pipes and sockets"). The filter's program (PROGRAM, classic BPF) is written by
 * bots.sandbox.seccomp.inode_filter_bpf into the header this file is compiled with. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "program.h"

/* JNI_OnLoad as jni.h declares it, without jni.h: the JVM calls it as it loads this file. */
int JNI_OnLoad(void *vm, void *reserved) {
    (void)vm;
    (void)reserved;
    struct sock_fprog program = {
        .len = sizeof PROGRAM / sizeof(struct sock_filter),
        .filter = (struct sock_filter *)PROGRAM,
    };
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        fprintf(stderr, "card arena seal: prctl: %s\n", strerror(errno));
        return -1;  /* the JVM refuses the library: System.load throws */
    }
    long failed = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program);
    if (failed != 0) {
        fprintf(stderr, "card arena seal: seccomp: %s\n", failed > 0 ? "a thread" : strerror(errno));
        return -1;
    }
    return 0x00010008; /* JNI_VERSION_1_8 */
}
