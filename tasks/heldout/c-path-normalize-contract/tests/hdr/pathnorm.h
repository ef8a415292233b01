#ifndef PATHNORM_H
#define PATHNORM_H

#include <stddef.h>

/*
 * Lexical POSIX path normalisation (pure string processing: never touches the filesystem,
 * never follows symlinks).
 *
 * path_normalize(in, out, outsz):
 *   - repeated slashes collapse to one; "." components are removed;
 *   - ".." removes the preceding component;
 *   - absolute paths: ".." at the root is dropped   ("/../a/./b/" -> "/a/b");
 *   - relative paths: ".." that cannot be resolved is kept at the front
 *                                                    ("a/../../b" -> "../b", "../..//x/.." -> "../..");
 *   - a relative path that normalises to nothing becomes "."; the root stays "/";
 *   - the result never ends with '/' unless it is exactly "/";
 *   - components that merely contain dots ("...", ".hidden", "a..") are ordinary names.
 *
 * path_join(base, rel, out, outsz):
 *   if rel is absolute the result is path_normalize(rel), otherwise
 *   path_normalize(base + "/" + rel).
 *
 * Both functions behave like snprintf with respect to the output buffer: they write at most
 * outsz bytes including the terminating NUL (nothing if outsz == 0, out may then be NULL) and
 * return the length of the complete result (excluding the NUL), so a return value >= outsz
 * means the output was truncated. There is no limit on path length, and both functions are
 * reentrant. They return -1 if an input pointer is NULL or an input string is empty.
 */
long path_normalize(const char *in, char *out, size_t outsz);
long path_join(const char *base, const char *rel, char *out, size_t outsz);

#endif
