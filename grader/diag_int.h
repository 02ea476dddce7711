/* diag_int.h — the source-reading helpers diag.c shares with diag_index.c. */
#ifndef DIAG_INT_H
#define DIAG_INT_H

#include <stddef.h>

/* Line n of src (1-based) into buf, without its newline; "" past the end. */
void diag_source_line(const char *src, int n, char *buf, size_t len);
/* Next whole-word occurrence of word in s at or after p, or NULL. */
const char *diag_find_word(const char *s, const char *p, const char *word);
/* A character of an identifier: a letter, a digit or '_'. */
int diag_ident_char(char c);

#endif
