// What a piece of code writes to stderr, where jet's warnings go.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <string>

namespace jet::test {

/// What f writes to stderr; stderr is a temporary file meanwhile.
template <class F> std::string stderr_of(F&& f) {
  struct redirect {
    std::FILE* capture = std::tmpfile();
    int saved = ::dup(2);
    redirect() {
      std::fflush(stderr);
      ::dup2(::fileno(capture), 2);
    }
    ~redirect() {
      std::fflush(stderr);
      ::dup2(saved, 2);
      ::close(saved);
      std::fclose(capture);
    }
  } r;
  f();
  std::fflush(stderr);
  std::rewind(r.capture);
  std::string text;
  for (int c; (c = std::fgetc(r.capture)) != EOF;) text += static_cast<char>(c);
  return text;
}

}  // namespace jet::test
