# The fallback build of the addon with node-gyp, run at `npm install` only
# when no prebuild matches (node-gyp-build's install script): the addon's
# sources with the engine and the C API (deps/minigraf, copied there by
# scripts/dist.sh) linked in, as the prebuilds are. Needs a C11 compiler,
# make and Python 3; node-gyp downloads Node's headers unless
# npm_config_nodedir names a directory that has them.
{
  "targets": [
    {
      "target_name": "minigraf",
      "sources": [
        "<!@(node gyp-sources.js src deps/minigraf/engine deps/minigraf/capi/src)"
      ],
      "include_dirs": ["deps/minigraf/capi/include", "deps/minigraf/engine"],
      "defines": ["_POSIX_C_SOURCE=200809L", "NDEBUG"],
      "cflags_c": ["-std=c11", "-fvisibility=hidden"],
      "libraries": ["-lm", "-lpthread"],
      "ldflags": ["-Wl,--version-script=<(module_root_dir)/addon.map"]
    }
  ]
}
