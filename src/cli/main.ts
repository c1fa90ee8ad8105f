console.error("life-thread: not built yet"); process.exit(1);
