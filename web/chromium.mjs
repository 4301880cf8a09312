// Print where @sparticuz/chromium's headless Chromium is (unpacked on first use) and its
// launch arguments, as one JSON line: {"executable_path": ..., "args": [...]}.
import chromium from "@sparticuz/chromium";

const executablePath = await chromium.executablePath();
console.log(JSON.stringify({ executable_path: executablePath, args: chromium.args }));
