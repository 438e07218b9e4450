export {
  CLI_MAIN,
  DEMO_MODEL,
  DINOTXT,
  DINOTXT_FILES,
  FIXTURES,
  fixturePath,
  IJEPA_PRED,
  LEWM,
  QUANTIZE_MAIN,
  REFERENCE,
  REFERENCE_HEADS,
  REPO_ROOT,
  SAMPLE_JPG,
  SAMPLE_MP4,
  VIDEO_WINDOWS,
  VJEPA2_1_HIER,
  WEB_DIST,
} from './paths.js';
export { requireBuilt } from './built.js';
export { classifierLogits } from './classifier-head.js';
export { cliMain, runCli, type CliRun, type CliRunOptions } from './cli.js';
export { convertDinotxt, dinotxtReference, type DinotxtReference } from './dinotxt-fixture.js';
export { pngOf, rgbPng, seededPng } from './png.js';
export { freePort, RedisServer } from './redis-server.js';
export {
  FIXTURE_TABLE,
  manifestOf,
  NEGATIVE_CONTROLS,
  npy,
  type FixtureConvertOptions,
  type GoldenCase,
  type ReferenceFixture,
} from './reference-fixtures.js';
export { AC_CASES, acCase, type AcCase, type AcCemSettingsJson, type AcConverter, type AcManifest } from './ac-fixture.js';
export { commitOf, filesOfFolder, type HubFile, type HubRepo, hubFile } from './hub-repo.js';
export { type HubFault, type HubRequest, HubServer, type SeedOptions } from './hub-server.js';
