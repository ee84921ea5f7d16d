/* engine: wires the layers together at start-up. The window lifecycle
 * (turn) knows nothing of deadlines or reports, and the server key
 * (serverkey) nothing of mail: they hang on them through hooks, which
 * engine_init registers. Every program that opens or resolves windows or
 * rotates the key calls it once before (main, the daemon through main,
 * the tests' fixtures, the benches). */
#ifndef ENGINE_H
#define ENGINE_H

/* Register the hooks (idempotent). */
void engine_init(void);

#endif
