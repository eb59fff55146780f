/*
 * Measurement aid, never deployed: loaded with LD_PRELOAD, it marks every executable file
 * mapping of the process MADV_RANDOM before main runs. The kernel then maps only the pages a
 * process touches, instead of "faulting around" each touched code page (16 pages at a time
 * by default), which is how most of a process's RSS on shared libraries is made. bench.py
 * runs the services once more with it to show how much of their RSS is that kernel policy
 * rather than memory rnm uses. Build: gcc -O2 -shared -fPIC -o no_fault_around.so no_fault_around.c
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

__attribute__((constructor)) static void no_fault_around(void) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return;
    char line[4096];
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        char perms[5];
        if (sscanf(line, "%lx-%lx %4s", &start, &end, perms) != 3) continue;
        /* File-backed mappings only (a path after the inode); code and read-only data. */
        if (!strchr(line, '/')) continue;
        if (perms[2] != 'x' && perms[1] != '-') continue;
        madvise((void *)start, end - start, MADV_RANDOM);
        /* Drop the code the loader already faulted in; touched pages come back one by one.
           Code only: read-only data may hold relocations (RELRO), which must stay. */
        if (perms[2] == 'x') madvise((void *)start, end - start, MADV_DONTNEED);
    }
    fclose(maps);
}
