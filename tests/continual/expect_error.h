// Test helper: runs fn and expects a dmlkit::Error naming `file` and `field`.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/error.h"

namespace dmlkit::continual {

inline void expect_error(const std::function<void()>& fn, const std::string& file, const std::string& field) {
  try {
    fn();
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), file);
    EXPECT_EQ(e.field(), field);
  }
}

}  // namespace dmlkit::continual
