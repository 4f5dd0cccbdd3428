# Included at the end of llama.cpp's own project() call while llama-cpp-python's wheel is built for
# the LLM tests (Makefile: llm-wheel, CMAKE_PROJECT_llama.cpp_INCLUDE). llama-cpp-python forces
# LLAMA_BUILD_COMMON on in its cache, yet its Python package loads only libllama, libggml* (and
# libmtmd, not built here): llama.cpp's common library (51 C++ files with the JSON and template
# headers, about half the build's time) is compiled for nothing. A normal variable set here shadows
# the cached ON (policy CMP0077: option() leaves a normal variable alone), so common/ is neither
# built nor installed.
set(LLAMA_BUILD_COMMON OFF)
