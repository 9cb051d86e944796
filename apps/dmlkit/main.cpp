#include <iostream>

#include "dmlkit/cli.h"

int main(int argc, char** argv) { return dmlkit::app::run_cli(argc, argv, std::cout, std::cerr); }
