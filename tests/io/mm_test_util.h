/* tests/io/mm_test_util.h: a private temporary folder for the Matrix Market tests: write small files, clean up.
 * Include after test.h; the test defines _POSIX_C_SOURCE 200809L before any include (mkdtemp, rmdir). */
#ifndef PDS_MM_TEST_UTIL_H
#define PDS_MM_TEST_UTIL_H

#include <unistd.h>

#define MM_TEST_MAX_FILES 128

static char mm_test_dir[512];
static char mm_test_files[MM_TEST_MAX_FILES][600];
static int  mm_test_nfiles;

static inline void mm_test_tmpdir(void) {
  const char *base = getenv("TMPDIR");

  snprintf(mm_test_dir, sizeof mm_test_dir, "%s/pds_mmio_XXXXXX", base && base[0] ? base : "/tmp");
  if (!mkdtemp(mm_test_dir)) TEST_FAIL("mkdtemp(%s) failed", mm_test_dir);
}

/* Path of name in the temporary folder (remembered for cleanup); the string stays valid until the end. */
static inline const char *mm_test_path(const char *name) {
  char *p;

  if (mm_test_nfiles == MM_TEST_MAX_FILES) TEST_FAIL("too many temporary files");
  p = mm_test_files[mm_test_nfiles++];
  snprintf(p, sizeof mm_test_files[0], "%s/%s", mm_test_dir, name);
  return p;
}

/* Write len bytes of content (len < 0: a C string) to a new file in the temporary folder; returns its path. */
static inline const char *mm_test_file_n(const char *name, const char *content, long len) {
  const char *path = mm_test_path(name);
  FILE       *f    = fopen(path, "wb");
  size_t      n    = len < 0 ? strlen(content) : (size_t)len;

  if (!f || fwrite(content, 1, n, f) != n || fclose(f)) TEST_FAIL("cannot write %s", path);
  return path;
}
static inline const char *mm_test_file(const char *name, const char *content) {
  return mm_test_file_n(name, content, -1);
}

static inline void mm_test_cleanup(void) {
  for (int i = mm_test_nfiles - 1; i >= 0; i--) remove(mm_test_files[i]);
  mm_test_nfiles = 0;
  if (mm_test_dir[0] && rmdir(mm_test_dir)) fprintf(stderr, "warning: cannot remove %s\n", mm_test_dir);
}

#endif
