/** The .node files to try, in order: JEPA_ADDON, the source builds here, then the prebuilt binary. */
export function addonPaths(): string[];
/** The C++ mul_mat driver built beside a source build (jepa-bench). */
export function mulmatDriverPath(): string;
/** The platform package that would carry this machine's prebuilt binary, e.g. `@jepa/addon-linux-x64`. */
export function prebuiltPackage(): string;
/** The prebuilt binary's path, or null when that package is not installed. */
export function prebuiltPath(): string | null;
