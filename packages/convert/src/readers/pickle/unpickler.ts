import { ConvertError } from '../../errors.js';
import { HIGHEST_PROTOCOL, Op } from './opcodes.js';
import { narrowInteger, PickleInput } from './pickle-input.js';
import { isTuple, PyGlobal, PyHandle, PyObject, tuple, type GlobalWhitelist, type PyValue } from './py-values.js';
import { isTensorRef } from '../tensor-ref.js';

export interface PickleOptions {
  /** The only globals the pickle may name; anything else is refused when it is named. */
  globals: GlobalWhitelist;
  /** Resolves a persistent id (torch storages). Without it, a persistent id is refused. */
  persistentLoad?: (pid: PyValue) => PyValue;
}

/**
 * Runs a pickle program over plain data. It never imports or calls anything by name: GLOBAL
 * resolves only through the whitelist, and REDUCE / NEWOBJ call only the whitelist's behaviours.
 */
export function runPickle(bytes: Uint8Array, options: PickleOptions): PyValue {
  return new Unpickler(bytes, options).run();
}

class Unpickler {
  private readonly input: PickleInput;
  private stack: PyValue[] = [];
  private readonly metastack: PyValue[][] = [];
  private readonly memo = new Map<number, PyValue>();

  constructor(
    bytes: Uint8Array,
    private readonly options: PickleOptions,
  ) {
    this.input = new PickleInput(bytes);
  }

  run(): PyValue {
    const input = this.input;
    for (;;) {
      const at = input.position;
      const op = input.u8();
      switch (op) {
        case Op.PROTO: {
          const version = input.u8();
          if (version > HIGHEST_PROTOCOL)
            throw new ConvertError('PICKLE_UNSUPPORTED_PROTOCOL', `pickle: protocol ${version} is newer than ${HIGHEST_PROTOCOL}`);
          break;
        }
        case Op.FRAME:
          input.u64(); // frames only group opcodes for buffered I/O; the data follows inline
          break;
        case Op.STOP:
          if (this.metastack.length !== 0 || this.stack.length !== 1) {
            throw new ConvertError('PICKLE_STACK', `pickle: STOP with ${this.stack.length} values and ${this.metastack.length} open marks`);
          }
          return this.stack[0];
        case Op.MARK:
          this.metastack.push(this.stack);
          this.stack = [];
          break;
        case Op.POP:
          if (this.stack.length > 0) this.pop();
          else this.popMark();
          break;
        case Op.POP_MARK:
          this.popMark();
          break;
        case Op.DUP:
          this.push(this.top());
          break;

        case Op.NONE:
          this.push(null);
          break;
        case Op.NEWTRUE:
          this.push(true);
          break;
        case Op.NEWFALSE:
          this.push(false);
          break;
        case Op.BININT:
          this.push(input.i32());
          break;
        case Op.BININT1:
          this.push(input.u8());
          break;
        case Op.BININT2:
          this.push(input.u16());
          break;
        case Op.LONG1:
          this.push(input.signedLittleEndian(input.u8()));
          break;
        case Op.LONG4:
          this.push(input.signedLittleEndian(input.i32()));
          break;
        case Op.INT:
          this.push(parseTextInt(input.line(), true));
          break;
        case Op.LONG:
          this.push(parseTextInt(input.line().replace(/L$/, ''), false));
          break;
        case Op.BINFLOAT:
          this.push(input.f64BigEndian());
          break;
        case Op.FLOAT:
          this.push(parseTextFloat(input.line()));
          break;

        case Op.BINUNICODE:
          this.push(input.utf8(input.u32()));
          break;
        case Op.SHORT_BINUNICODE:
          this.push(input.utf8(input.u8()));
          break;
        case Op.BINUNICODE8:
          this.push(input.utf8(input.u64()));
          break;
        case Op.UNICODE:
          this.push(decodeRawUnicodeEscape(input.line()));
          break;
        case Op.STRING:
          this.push(decodeQuotedString(input.line()));
          break;
        case Op.BINSTRING:
          this.push(input.latin1(input.i32()));
          break;
        case Op.SHORT_BINSTRING:
          this.push(input.latin1(input.u8()));
          break;
        case Op.BINBYTES:
          this.push(input.bytesOf(input.u32()));
          break;
        case Op.SHORT_BINBYTES:
          this.push(input.bytesOf(input.u8()));
          break;
        case Op.BINBYTES8:
        case Op.BYTEARRAY8:
          this.push(input.bytesOf(input.u64()));
          break;

        case Op.EMPTY_DICT:
          this.push(new Map());
          break;
        case Op.EMPTY_LIST:
          this.push([]);
          break;
        case Op.EMPTY_TUPLE:
          this.push(tuple([]));
          break;
        case Op.EMPTY_SET:
          this.push(new Set());
          break;
        case Op.TUPLE1:
          this.push(tuple(this.popN(1)));
          break;
        case Op.TUPLE2:
          this.push(tuple(this.popN(2)));
          break;
        case Op.TUPLE3:
          this.push(tuple(this.popN(3)));
          break;
        case Op.TUPLE:
          this.push(tuple(this.popMark()));
          break;
        case Op.LIST:
          this.push(this.popMark());
          break;
        case Op.DICT:
          this.push(this.setItems(new Map(), this.popMark()));
          break;
        case Op.FROZENSET:
          this.push(new Set(this.popMark()));
          break;
        case Op.APPEND: {
          const item = this.pop();
          this.listAt(this.top(), 'APPEND').push(item);
          break;
        }
        case Op.APPENDS: {
          const items = this.popMark();
          const list = this.listAt(this.top(), 'APPENDS');
          for (const item of items) list.push(item);
          break;
        }
        case Op.SETITEM: {
          const [key, value] = this.popN(2);
          this.setItems(this.top(), [key, value]);
          break;
        }
        case Op.SETITEMS: {
          const items = this.popMark();
          this.setItems(this.top(), items);
          break;
        }
        case Op.ADDITEMS: {
          const items = this.popMark();
          const set = this.top();
          if (!(set instanceof Set)) throw new ConvertError('PICKLE_STACK', `pickle: ADDITEMS on a non-set at ${at}`);
          for (const item of items) set.add(item);
          break;
        }

        case Op.BINPUT:
          this.memo.set(input.u8(), this.top());
          break;
        case Op.LONG_BINPUT:
          this.memo.set(input.u32(), this.top());
          break;
        case Op.PUT:
          this.memo.set(memoIndex(input.line()), this.top());
          break;
        case Op.MEMOIZE:
          this.memo.set(this.memo.size, this.top());
          break;
        case Op.BINGET:
          this.push(this.memoGet(input.u8()));
          break;
        case Op.LONG_BINGET:
          this.push(this.memoGet(input.u32()));
          break;
        case Op.GET:
          this.push(this.memoGet(memoIndex(input.line())));
          break;

        case Op.GLOBAL: {
          const module = input.line();
          this.push(this.resolveGlobal(module, input.line()));
          break;
        }
        case Op.STACK_GLOBAL: {
          const [module, name] = this.popN(2);
          if (typeof module !== 'string' || typeof name !== 'string')
            throw new ConvertError('PICKLE_STACK', `pickle: STACK_GLOBAL needs two strings at ${at}`);
          this.push(this.resolveGlobal(module, name));
          break;
        }
        case Op.REDUCE: {
          const args = this.pop();
          this.push(this.call(this.pop(), args, 'REDUCE'));
          break;
        }
        case Op.NEWOBJ: {
          const args = this.pop();
          this.push(this.call(this.pop(), args, 'NEWOBJ'));
          break;
        }
        case Op.NEWOBJ_EX: {
          const [cls, args, kwargs] = this.popN(3);
          if (!(kwargs instanceof Map) || kwargs.size !== 0)
            throw new ConvertError('PICKLE_BAD_CALL', `pickle: NEWOBJ_EX with keyword arguments at ${at}`);
          this.push(this.call(cls, args, 'NEWOBJ_EX'));
          break;
        }
        case Op.BUILD: {
          const state = this.pop();
          build(this.top(), state, at);
          break;
        }
        case Op.BINPERSID:
          this.push(this.persistentLoad(this.pop()));
          break;
        case Op.PERSID:
          this.push(this.persistentLoad(input.line()));
          break;

        default:
          throw new ConvertError(
            'PICKLE_UNSUPPORTED_OPCODE',
            `pickle: opcode 0x${op.toString(16).padStart(2, '0')} at ${at} is not supported by this reader (INST, OBJ, EXT and out-of-band buffers are refused)`,
          );
      }
    }
  }

  private push(value: PyValue): void {
    this.stack.push(value);
  }

  private pop(): PyValue {
    if (this.stack.length === 0) throw new ConvertError('PICKLE_STACK', `pickle: stack underflow at ${this.input.position - 1}`);
    return this.stack.pop() as PyValue;
  }

  private top(): PyValue {
    if (this.stack.length === 0) throw new ConvertError('PICKLE_STACK', `pickle: empty stack at ${this.input.position - 1}`);
    return this.stack[this.stack.length - 1];
  }

  private popN(n: number): PyValue[] {
    if (this.stack.length < n) throw new ConvertError('PICKLE_STACK', `pickle: stack underflow at ${this.input.position - 1}`);
    return this.stack.splice(this.stack.length - n, n);
  }

  private popMark(): PyValue[] {
    const items = this.stack;
    const outer = this.metastack.pop();
    if (outer === undefined) throw new ConvertError('PICKLE_STACK', `pickle: no MARK open at ${this.input.position - 1}`);
    this.stack = outer;
    return items;
  }

  private memoGet(index: number): PyValue {
    if (!this.memo.has(index)) throw new ConvertError('PICKLE_MEMO', `pickle: memo slot ${index} read before it was written`);
    return this.memo.get(index) as PyValue;
  }

  private listAt(target: PyValue, op: string): PyValue[] {
    if (!Array.isArray(target) || Object.isFrozen(target)) throw new ConvertError('PICKLE_STACK', `pickle: ${op} on a non-list`);
    return target as PyValue[];
  }

  private setItems(target: PyValue, items: PyValue[]): Map<PyValue, PyValue> {
    if (!(target instanceof Map)) throw new ConvertError('PICKLE_STACK', `pickle: SETITEM on a non-dict`);
    if (items.length % 2 !== 0) throw new ConvertError('PICKLE_STACK', `pickle: odd number of dict items`);
    for (let i = 0; i < items.length; i += 2) target.set(items[i], items[i + 1]);
    return target;
  }

  private resolveGlobal(module: string, name: string): PyGlobal {
    const found = this.options.globals.get(module)?.get(name);
    if (found === undefined) {
      throw new ConvertError(
        'PICKLE_FORBIDDEN_GLOBAL',
        `pickle: refusing global ${module}.${name}: only tensors, storages and plain containers may be unpickled`,
      );
    }
    return found;
  }

  private call(callable: PyValue, args: PyValue, op: string): PyValue {
    if (!(callable instanceof PyGlobal) || callable.behaviour.call === undefined) {
      throw new ConvertError('PICKLE_BAD_CALL', `pickle: ${op} on ${describe(callable)}, which is not a whitelisted callable`);
    }
    if (!Array.isArray(args)) throw new ConvertError('PICKLE_BAD_CALL', `pickle: ${op} ${callable.qualifiedName} with non-tuple arguments`);
    return callable.behaviour.call(args);
  }

  private persistentLoad(pid: PyValue): PyValue {
    if (this.options.persistentLoad === undefined) {
      throw new ConvertError('PICKLE_NO_PERSISTENT_LOAD', 'pickle: a persistent id appears but no persistent loader was given');
    }
    return this.options.persistentLoad(pid);
  }
}

/** BUILD: set state on an object. Only whitelisted data objects take attributes. */
function build(target: PyValue, state: PyValue, at: number): void {
  if (target instanceof PyObject) {
    const [dict, slots] = isTuple(state) && state.length === 2 ? state : [state, null];
    for (const part of [dict, slots]) {
      if (part === null) continue;
      if (!(part instanceof Map)) throw new ConvertError('PICKLE_BAD_CALL', `pickle: BUILD ${target.className} with a non-dict state at ${at}`);
      for (const [key, value] of part) target.attributes.set(String(key), value);
    }
    return;
  }
  // OrderedDict state carries torch's `_metadata` (module versions) and a Parameter's
  // state carries Python attributes: neither affects tensor values.
  if (target instanceof Map || isTensorRef(target)) return;
  if (target instanceof PyHandle && target.setState(state)) return;
  throw new ConvertError('PICKLE_BAD_CALL', `pickle: BUILD on ${describe(target)} at ${at}`);
}

function describe(value: PyValue): string {
  if (value instanceof PyGlobal) return value.qualifiedName;
  if (value === null) return 'None';
  if (Array.isArray(value)) return isTuple(value) ? 'a tuple' : 'a list';
  if (value instanceof Map) return 'a dict';
  return typeof value === 'object' ? value.constructor.name : typeof value;
}

function parseTextInt(text: string, allowBool: boolean): number | bigint | boolean {
  if (allowBool && text === '00') return false;
  if (allowBool && text === '01') return true;
  if (!/^[+-]?\d+$/.test(text)) throw new ConvertError('PICKLE_STACK', `pickle: bad integer literal ${JSON.stringify(text)}`);
  return narrowInteger(BigInt(text));
}

function parseTextFloat(text: string): number {
  const value = Number(text);
  if (Number.isNaN(value) && !/^[+-]?nan$/i.test(text)) throw new ConvertError('PICKLE_STACK', `pickle: bad float literal ${JSON.stringify(text)}`);
  return value;
}

/** Protocol 0 UNICODE: raw-unicode-escape, i.e. latin-1 text with \\uXXXX and \\UXXXXXXXX escapes. */
function decodeRawUnicodeEscape(text: string): string {
  return text.replace(/\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})/g, (_, short: string | undefined, long: string | undefined) =>
    String.fromCodePoint(parseInt(short ?? long ?? '0', 16)),
  );
}

const STRING_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', "'": "'", '"': '"', n: '\n', r: '\r', t: '\t', '0': '\0' };

/** Protocol 0 STRING: a Python repr of a byte string, quoted, with backslash escapes. */
function decodeQuotedString(text: string): string {
  const quote = text[0];
  if (text.length < 2 || (quote !== "'" && quote !== '"') || text[text.length - 1] !== quote) {
    throw new ConvertError('PICKLE_STACK', `pickle: STRING argument ${JSON.stringify(text)} is not quoted`);
  }
  return text.slice(1, -1).replace(/\\(x[0-9a-fA-F]{2}|.)/g, (match, seq: string) => {
    if (seq.startsWith('x') && seq.length === 3) return String.fromCharCode(parseInt(seq.slice(1), 16));
    const plain = STRING_ESCAPES[seq];
    if (plain === undefined) throw new ConvertError('PICKLE_STACK', `pickle: unknown escape ${match} in STRING`);
    return plain;
  });
}

function memoIndex(text: string): number {
  const index = Number(text);
  if (!Number.isSafeInteger(index) || index < 0) throw new ConvertError('PICKLE_MEMO', `pickle: bad memo index ${JSON.stringify(text)}`);
  return index;
}
