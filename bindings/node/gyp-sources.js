'use strict';
// Prints the C sources under the directories given (recursively), one
// argument per file, for binding.gyp's <!@(...) expansion: the package's
// source fallback compiles what CMake's GLOB_RECURSE would.
const fs = require('node:fs');
const path = require('node:path');

function sources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith('.c') ? [file] : [];
  });
}

console.log(process.argv.slice(2).flatMap(sources).sort().join('\n'));
