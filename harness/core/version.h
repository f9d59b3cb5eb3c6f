/* version.h - what this binary was built from, as `flowbench --version`
 * and every results header say it. */
#ifndef FB_CORE_VERSION_H
#define FB_CORE_VERSION_H

/* The release, FB_VERSION, is the project's version in CMakeLists.txt. */

/* The git commit of the source tree at the last build ("0123456789ab",
 * "0123456789ab-dirty" when tracked files had changes, "unknown" for a
 * tree outside git). Defined in the build folder's generated
 * git_revision.c, which cmake/git_revision.cmake rewrites at every build
 * where the revision changed: a compile definition fixed at configure
 * time went stale with every commit after it. */
const char *fb_git_revision(void);

#endif
