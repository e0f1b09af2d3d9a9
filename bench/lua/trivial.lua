-- GET / on the trivial server (bench/trivial_http.cpp).
dofile(os.getenv("BENCH_LUA") .. "/common.lua")
