const t0 = performance.now();
await import(process.argv[2]);
console.log(process.argv[2].split('/').slice(-2).join('/'), (performance.now() - t0).toFixed(1));
