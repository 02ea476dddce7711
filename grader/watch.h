/* watch.h — `clgrade watch LESSON [KERNEL] [check options]` (`make watch LESSON=N`): the
 * student's loop.  Grades the kernel, then re-grades it on every save (inotify on the file's
 * folder, so editors that save by renaming a new file into place are seen too), debounced,
 * the screen cleared before each report; Ctrl-C leaves with status 0. */
#ifndef WATCH_H
#define WATCH_H

/* argv[0] is "watch".  Returns the exit status: 0 after Ctrl-C, 2 on a usage error or when
 * the file cannot be watched. */
int watch_main(int argc, char **argv);

#endif
