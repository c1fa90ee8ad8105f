// A tiny "test run" for the demo: prints a summary line the wake pulse recognises.
const started = Date.now();
setTimeout(() => {
  console.log('checking the demo…');
  console.log(`3 passed, 1 failed (${Date.now() - started} ms)`);
  process.exit(1);
}, 1500);
