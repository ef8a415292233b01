#ifndef SEMVER_H
#define SEMVER_H

#include <stddef.h>

/*
 * Semantic Versioning 2.0.0 helpers (https://semver.org).
 *
 * Accepted syntax:  [v]MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]
 *   - an optional single leading lowercase 'v' is accepted and ignored;
 *   - MAJOR, MINOR, PATCH: non-empty decimal digit strings without leading zeros ("0" is fine);
 *     they may be arbitrarily long (e.g. "1.0.184467440737095516160") and must be compared
 *     exactly;
 *   - PRERELEASE: one or more dot-separated identifiers, each non-empty and made of
 *     [0-9A-Za-z-]; an identifier made only of digits is numeric and must not have leading zeros;
 *   - BUILD: one or more dot-separated non-empty identifiers of [0-9A-Za-z-] (leading zeros ok).
 *   Anything else (whitespace, empty string, NULL, missing components, ...) is invalid.
 *
 * Precedence (semver.org section 11): compare MAJOR, MINOR, PATCH numerically; a version with
 * a prerelease has lower precedence than the same version without one; prerelease identifiers
 * are compared left to right: numeric ones numerically, alphanumeric ones by ASCII order,
 * numeric identifiers always lower than alphanumeric ones, and a longer list wins when all
 * preceding identifiers are equal. BUILD metadata is ignored for precedence.
 */

#define SEMVER_EINVAL (-1)

/* 1 if s is a valid version string, 0 otherwise. */
int semver_valid(const char *s);

/* Compare a and b. On success returns 0 and stores -1, 0 or 1 in *result (a<b, a==b, a>b).
 * Returns SEMVER_EINVAL if a or b is invalid (then *result is left untouched). */
int semver_compare(const char *a, const char *b, int *result);

/* Write the canonical form "MAJOR.MINOR.PATCH[-PRERELEASE]" (no 'v', no build metadata) to buf.
 * Behaves like snprintf: writes at most n bytes including the terminating NUL (nothing if
 * n == 0, buf may then be NULL) and returns the length of the full canonical form.
 * Returns SEMVER_EINVAL if s is invalid. */
int semver_normalize(const char *s, char *buf, size_t n);

#endif
