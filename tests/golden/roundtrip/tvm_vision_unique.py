# Vision and set operators as TVM's tests write them (black-formatted,
# keyword attributes, positional prim flags of R.unique).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def boxes(
        data: R.Tensor((2, 7, 6), "float32"),
        feats: R.Tensor((1, 4, 16, 16), "float32"),
        rois: R.Tensor(("r", 5), "float32"),
    ):
        counts = R.vision.get_valid_counts(data, score_threshold=0.25, id_index=-1, score_index=1)
        valid = counts[0]
        sorted_ = counts[2]
        kept = R.vision.non_max_suppression(
            data,
            valid,
            sorted_,
            max_output_size=3,
            iou_threshold=0.5,
            top_k=4,
        )
        soft = R.vision.non_max_suppression(
            data, valid, sorted_, soft_nms_sigma=0.5, coord_start=1
        )
        data2 = R.vision.non_max_suppression(data, valid, sorted_, return_indices=False)
        pooled = R.vision.roi_pool(feats, rois, pooled_size=(3, 2), spatial_scale=0.25)
        pooled2 = R.vision.roi_pool(feats, rois, pooled_size=2, spatial_scale=1.0, layout="NCHW")
        return (kept, soft, data2, pooled, pooled2)

    @R.function
    def decode(
        cls_pred: R.Tensor(("b", 3, 5), "float32"),
        loc_pred: R.Tensor(("b", 20), "float32"),
        anchor: R.Tensor((1, 5, 4), "float32"),
    ):
        a = R.vision.multibox_transform_loc(cls_pred, loc_pred, anchor)
        b = R.vision.multibox_transform_loc(
            cls_pred,
            loc_pred,
            anchor,
            clip=True,
            threshold=0.1,
            variances=(0.1, 0.1, 0.2, 0.2),
            keep_background=False,
        )
        return (a, b)

    @R.function
    def uniq(x: R.Tensor((6,), "int32"), s: R.Tensor((), "float32"), m: R.Tensor((3, 4), "int64")):
        u = R.unique(x)
        v = R.unique(x, sorted=False, return_counts=True)
        w = R.unique(
            x,
            R.prim_value(False),
            R.prim_value(True),
            R.prim_value(True),
            R.prim_value(True),
        )
        z = R.unique(s, return_index=True)
        rows = R.unique(m, axis=R.prim_value(0))
        return (u, v, w, z, rows)
