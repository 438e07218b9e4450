import { ConvertError } from '../../errors.js';
import { halfToFloat32Bits } from '../to-float32.js';
import { narrowInteger } from './pickle-input.js';
import { isTuple, PyGlobal, PyHandle, type PyValue } from './py-values.js';

/** A numpy.dtype as pickled for scalars: a type code ('f8', 'i4', ...) and a byte order. */
export class NumpyDType extends PyHandle {
  readonly kind = 'numpy-dtype';
  byteOrder = '|';

  constructor(readonly code: string) {
    super();
  }

  override setState(state: PyValue): boolean {
    if (!isTuple(state) || typeof state[1] !== 'string') return false;
    this.byteOrder = state[1];
    return true;
  }
}

const SCALAR_CODES = /^([fiub])(\d)$/;

/** Decodes the raw bytes of a numpy scalar (np.float64(0.5), np.int64(3), ...) to a JS value. */
function decodeScalar(dtype: NumpyDType, bytes: Uint8Array): PyValue {
  const match = SCALAR_CODES.exec(dtype.code);
  const size = match ? Number(match[2]) : 0;
  if (match === null || bytes.byteLength !== size) {
    throw new ConvertError('PICKLE_BAD_CALL', `pickle: numpy scalar of dtype ${dtype.code} with ${bytes.byteLength} bytes is not supported`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const little = dtype.byteOrder !== '>';
  const kind = match[1];
  if (kind === 'b' && size === 1) return bytes[0] !== 0;
  if (kind === 'f' && size === 8) return view.getFloat64(0, little);
  if (kind === 'f' && size === 4) return view.getFloat32(0, little);
  if (kind === 'f' && size === 2) return new Float32Array(new Uint32Array([halfToFloat32Bits(view.getUint16(0, little))]).buffer)[0];
  if (kind === 'i' && size === 8) return narrowInteger(view.getBigInt64(0, little));
  if (kind === 'u' && size === 8) return narrowInteger(view.getBigUint64(0, little));
  if (kind === 'i' && size === 4) return view.getInt32(0, little);
  if (kind === 'u' && size === 4) return view.getUint32(0, little);
  if (kind === 'i' && size === 2) return view.getInt16(0, little);
  if (kind === 'u' && size === 2) return view.getUint16(0, little);
  if (kind === 'i' && size === 1) return view.getInt8(0);
  if (kind === 'u' && size === 1) return view.getUint8(0);
  throw new ConvertError('PICKLE_BAD_CALL', `pickle: numpy scalar of dtype ${dtype.code} is not supported`);
}

const dtype = new PyGlobal('numpy', 'dtype', {
  call(args) {
    if (typeof args[0] !== 'string') throw new ConvertError('PICKLE_BAD_CALL', 'pickle: numpy.dtype needs a type code');
    return new NumpyDType(args[0]);
  },
});

function scalar(module: string): PyGlobal {
  return new PyGlobal(module, 'scalar', {
    call(args) {
      const [type, bytes] = args;
      if (!(type instanceof NumpyDType) || !(bytes instanceof Uint8Array)) {
        throw new ConvertError('PICKLE_BAD_CALL', `pickle: ${module}.scalar needs a dtype and its bytes`);
      }
      return decodeScalar(type, bytes);
    },
  });
}

/** Protocol 2 spells bytes as _codecs.encode(text, 'latin1'); nothing else is accepted. */
const codecsEncode = new PyGlobal('_codecs', 'encode', {
  call(args) {
    const [text, encoding] = args;
    if (typeof text !== 'string' || (encoding !== 'latin1' && encoding !== 'latin-1')) {
      throw new ConvertError('PICKLE_BAD_CALL', '_codecs.encode is only accepted for latin1 byte strings');
    }
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0xff) throw new ConvertError('PICKLE_BAD_CALL', '_codecs.encode: text is not latin1');
      out[i] = code;
    }
    return out;
  },
});

/** numpy scalars (numpy 1 and 2 module paths) as training loops leave them in checkpoints. */
export const NUMPY_SCALAR_GLOBALS: readonly PyGlobal[] = [dtype, scalar('numpy.core.multiarray'), scalar('numpy._core.multiarray'), codecsEncode];
