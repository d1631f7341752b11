// The main() of every test binary: GoogleTest's, after making sure KP_BIN_DIR and KP_SOURCE_DIR
// are set (ctest sets them; a test binary run by hand gets the paths of the build it came from).
#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  setenv("KP_BIN_DIR", KP_TEST_BIN_DIR, /*overwrite=*/0);
  setenv("KP_SOURCE_DIR", KP_TEST_SOURCE_DIR, /*overwrite=*/0);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
