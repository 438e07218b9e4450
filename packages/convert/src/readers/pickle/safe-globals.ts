import { ConvertError } from '../../errors.js';
import { NUMPY_SCALAR_GLOBALS } from './numpy-scalars.js';
import { PyGlobal, PyObject, tuple, type PyValue } from './py-values.js';

function expectArgs(g: string, args: readonly PyValue[], min: number, max: number): void {
  if (args.length < min || args.length > max) {
    throw new ConvertError('PICKLE_BAD_CALL', `pickle: ${g} called with ${args.length} arguments (expects ${min}-${max})`);
  }
}

function iterableItems(g: string, value: PyValue | undefined): PyValue[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return [...value];
  if (value instanceof Set) return [...value];
  throw new ConvertError('PICKLE_BAD_CALL', `pickle: ${g} needs a list, tuple or set argument`);
}

const orderedDict = new PyGlobal('collections', 'OrderedDict', {
  call(args) {
    expectArgs('collections.OrderedDict', args, 0, 1);
    const map = new Map<PyValue, PyValue>();
    for (const pair of iterableItems('collections.OrderedDict', args[0])) {
      if (!Array.isArray(pair) || pair.length !== 2) throw new ConvertError('PICKLE_BAD_CALL', 'pickle: OrderedDict items must be pairs');
      map.set(pair[0], pair[1]);
    }
    return map;
  },
});

const objectClass = new PyGlobal('builtins', 'object', {});

/** A plain attribute bag: argparse.Namespace configs appear in some training checkpoints. */
const namespace = new PyGlobal('argparse', 'Namespace', {
  call(args) {
    expectArgs('argparse.Namespace', args, 0, 0);
    return new PyObject('argparse.Namespace');
  },
  instantiate: () => new PyObject('argparse.Namespace'),
});

/** copyreg._reconstructor(cls, object, None) is how protocol 2 pickles plain instances. */
const reconstructor = new PyGlobal('copyreg', '_reconstructor', {
  call(args) {
    expectArgs('copyreg._reconstructor', args, 3, 3);
    const [cls, base, state] = args;
    if (!(cls instanceof PyGlobal) || cls.behaviour.instantiate === undefined || base !== objectClass || state !== null) {
      throw new ConvertError('PICKLE_BAD_CALL', 'pickle: copyreg._reconstructor may only rebuild whitelisted plain-data classes');
    }
    return cls.behaviour.instantiate();
  },
});

function collection(name: string): PyGlobal {
  return new PyGlobal('builtins', name, {
    call(args) {
      expectArgs(`builtins.${name}`, args, 0, 1);
      return new Set(iterableItems(`builtins.${name}`, args[0]));
    },
  });
}

const torchSize = new PyGlobal('torch', 'Size', {
  call(args) {
    expectArgs('torch.Size', args, 0, 1);
    return tuple(iterableItems('torch.Size', args[0]));
  },
});

const torchDevice = new PyGlobal('torch', 'device', {
  call(args) {
    expectArgs('torch.device', args, 1, 2);
    return args.map(String).join(':');
  },
});

const TORCH_DTYPE_NAMES = ['float64', 'float32', 'float16', 'bfloat16', 'int64', 'int32', 'int16', 'int8', 'uint8', 'bool'];

/** Plain-data globals every checkpoint may use: containers, sizes, devices, dtypes, configs. */
export const SAFE_GLOBALS: readonly PyGlobal[] = [
  orderedDict,
  objectClass,
  namespace,
  reconstructor,
  collection('set'),
  collection('frozenset'),
  torchSize,
  torchDevice,
  ...NUMPY_SCALAR_GLOBALS,
  ...TORCH_DTYPE_NAMES.map((name) => new PyGlobal('torch', name, { tag: `torch.${name}` })),
];
