// The licences the checkpoint families' weights are released under (SPDX), as their publishers state them:
// I-JEPA, V-JEPA and LeVJEPA under CC BY-NC 4.0; V-JEPA 2 / 2.1 / 2-AC and LeWM under MIT; LeJEPA and
// DINOv2 under Apache 2.0. A mapping names one only where every file of its layout shares it.
export const RELEASE_LICENSE = {
  CC_BY_NC: 'CC-BY-NC-4.0',
  MIT: 'MIT',
  APACHE: 'Apache-2.0',
} as const;
