/* diag.h — what the student sees of the compiler, and what the compiler may see of the disk.
 *
 * OpenCL compilers report errors against a temporary file (PoCL: ~/.cache/pocl/kcache/
 * tempfile_XXXX.cl; NVIDIA: "<kernel>"); diag_rewrite() puts them back on the student's file
 * with the source line and a caret.  An #include can read any file the grader can read, and
 * the compiler prints what it read into the log: diag_check_includes() refuses includes that
 * leave the lesson's own folder before the source reaches any compiler. */
#ifndef DIAG_H
#define DIAG_H

#include <stddef.h>

/* Rewrite a raw build log.  Lines "error: FILE:L:C: msg" (PoCL) and "FILE:L:C: error: msg"
 * (clang, NVIDIA) become "path:L:C: error: msg" followed by the source line and a caret; lines
 * about other files (an allowed header) keep their own name; driver chatter is dropped.
 * Returns the number of errors found; out is always NUL-terminated. */
int diag_rewrite(const char *raw, const char *source, const char *path, char *out, size_t outlen);

/* First "path:L:C: error: msg" line of a rewritten log, or "" (for one-line summaries). */
void diag_first_error(const char *rewritten, char *out, size_t outlen);

/* 0 when every #include names a plain file ("name.h", no '/', no "..") that exists in
 * lesson_dir; otherwise -1 and a message "path:L: #include ... refused: why" in msg.
 * Comments and backslash-newlines are handled; computed includes (#include MACRO) and
 * <system> includes are refused. */
int diag_check_includes(const char *source, const char *path, const char *lesson_dir,
                        char *msg, size_t msglen);

#endif
