import { ConvertError } from '../../errors.js';
import { isTensorRef } from '../tensor-ref.js';
import { SAFE_GLOBALS } from '../pickle/safe-globals.js';
import { buildWhitelist, PyGlobal, type GlobalWhitelist, type PyValue } from '../pickle/py-values.js';
import { rebuildTensor } from './rebuild-tensor.js';
import { STORAGE_DTYPES } from './storage-types.js';

function expectArgs(g: string, args: readonly PyValue[], min: number, max: number): void {
  if (args.length < min || args.length > max) {
    throw new ConvertError('PICKLE_BAD_CALL', `pickle: ${g} called with ${args.length} arguments (expects ${min}-${max})`);
  }
}

const rebuildTensorV2 = new PyGlobal('torch._utils', '_rebuild_tensor_v2', {
  call(args) {
    // (storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])
    expectArgs('torch._utils._rebuild_tensor_v2', args, 6, 7);
    return rebuildTensor(args[0], args[1], args[2], args[3]);
  },
});

const rebuildTensorV1 = new PyGlobal('torch._utils', '_rebuild_tensor', {
  call(args) {
    expectArgs('torch._utils._rebuild_tensor', args, 4, 4);
    return rebuildTensor(args[0], args[1], args[2], args[3]);
  },
});

function parameterData(g: string, data: PyValue | undefined): PyValue {
  if (data === undefined || !isTensorRef(data)) throw new ConvertError('PICKLE_BAD_CALL', `pickle: ${g} needs a tensor`);
  return data;
}

const rebuildParameter = new PyGlobal('torch._utils', '_rebuild_parameter', {
  call(args) {
    expectArgs('torch._utils._rebuild_parameter', args, 3, 3);
    return parameterData('torch._utils._rebuild_parameter', args[0]);
  },
});

const rebuildParameterWithState = new PyGlobal('torch._utils', '_rebuild_parameter_with_state', {
  call(args) {
    expectArgs('torch._utils._rebuild_parameter_with_state', args, 4, 4);
    return parameterData('torch._utils._rebuild_parameter_with_state', args[0]);
  },
});

const tensorClass = new PyGlobal('torch', 'Tensor', { tag: 'tensor-class' });
const parameterClass = new PyGlobal('torch.nn.parameter', 'Parameter', { tag: 'tensor-class' });

/** torch._tensor._rebuild_from_type_v2(func, new_type, args, state): tensors of a (whitelisted) subclass. */
const rebuildFromType = new PyGlobal('torch._tensor', '_rebuild_from_type_v2', {
  call(args) {
    expectArgs('torch._tensor._rebuild_from_type_v2', args, 4, 4);
    const [func, newType, funcArgs] = args;
    if (!(newType instanceof PyGlobal) || newType.behaviour.tag !== 'tensor-class') {
      throw new ConvertError('PICKLE_BAD_CALL', 'pickle: _rebuild_from_type_v2 with a type other than torch.Tensor or Parameter');
    }
    if (!(func instanceof PyGlobal) || func.behaviour.call === undefined || !Array.isArray(funcArgs)) {
      throw new ConvertError('PICKLE_BAD_CALL', 'pickle: _rebuild_from_type_v2 needs a whitelisted rebuild function and its arguments');
    }
    return parameterData('torch._tensor._rebuild_from_type_v2', func.behaviour.call(funcArgs));
  },
});

const storageClasses = Object.entries(STORAGE_DTYPES).map(([name, dtype]) => new PyGlobal('torch', name, { tag: dtype }));

/** Everything a torch.save checkpoint of tensors and plain data may name. */
export const TORCH_WHITELIST: GlobalWhitelist = buildWhitelist([
  ...SAFE_GLOBALS,
  rebuildTensorV2,
  rebuildTensorV1,
  rebuildParameter,
  rebuildParameterWithState,
  rebuildFromType,
  tensorClass,
  parameterClass,
  ...storageClasses,
]);
