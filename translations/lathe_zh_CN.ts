<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name></name>
    <message>
        <source>scale %1</source>
        <translation>缩放 %1</translation>
    </message>
    <message>
        <source>ratio %1</source>
        <translation>宽高比 %1</translation>
    </message>
    <message>
        <source>short side %1 px</source>
        <translation>短边 %1 像素</translation>
    </message>
    <message>
        <source>short side to suit the image size</source>
        <translation>短边适配图像尺寸</translation>
    </message>
    <message>
        <source>a square of the image size</source>
        <translation>图像尺寸的正方形</translation>
    </message>
    <message>
        <source>angle %1</source>
        <translation>角度 %1</translation>
    </message>
    <message>
        <source>rotate %1</source>
        <translation>旋转 %1</translation>
    </message>
    <message>
        <source>shift up to %1% × %2%</source>
        <translation>平移最多 %1% × %2%</translation>
    </message>
    <message>
        <source>shear x %1</source>
        <translation>x 方向错切 %1</translation>
    </message>
    <message>
        <source>shear y %1</source>
        <translation>y 方向错切 %1</translation>
    </message>
    <message>
        <source>no change</source>
        <translation>无变化</translation>
    </message>
    <message>
        <source>brightness %1</source>
        <translation>亮度 %1</translation>
    </message>
    <message>
        <source>contrast %1</source>
        <translation>对比度 %1</translation>
    </message>
    <message>
        <source>saturation %1</source>
        <translation>饱和度 %1</translation>
    </message>
    <message>
        <source>hue %1</source>
        <translation>色调 %1</translation>
    </message>
    <message>
        <source>±%1</source>
        <translation>±%1</translation>
    </message>
    <message>
        <source>kernel %1×%2</source>
        <translation>卷积核 %1×%2</translation>
    </message>
    <message>
        <source>sigma %1</source>
        <translation>sigma %1</translation>
    </message>
    <message>
        <source>factor %1</source>
        <translation>系数 %1</translation>
    </message>
    <message>
        <source>%1 bits</source>
        <translation>%1 位</translation>
    </message>
    <message>
        <source>pixels above %1 inverted</source>
        <translation>高于 %1 的像素取反</translation>
    </message>
    <message>
        <source>%1 operations at magnitude %2 of %3</source>
        <translation>%1 个操作，强度 %2 / %3</translation>
    </message>
    <message>
        <source>%1 magnitude bins</source>
        <translation>%1 个强度档位</translation>
    </message>
    <message>
        <source>mean %1</source>
        <translation>均值 %1</translation>
    </message>
    <message>
        <source>not clipped</source>
        <translation>不截断</translation>
    </message>
    <message>
        <source>area %1</source>
        <translation>面积 %1</translation>
    </message>
    <message>
        <source>random values</source>
        <translation>随机值</translation>
    </message>
    <message>
        <source>value %1, %2, %3</source>
        <translation>值 %1, %2, %3</translation>
    </message>
    <message>
        <source>alpha %1</source>
        <translation>alpha %1</translation>
    </message>
</context>
<context>
    <name>AugmentationStepForm</name>
    <message>
        <source>–</source>
        <translation>–</translation>
    </message>
    <message>
        <source>%</source>
        <translation>%</translation>
    </message>
    <message>
        <source>°</source>
        <translation>°</translation>
    </message>
    <message>
        <source>×</source>
        <translation>×</translation>
    </message>
    <message>
        <source>,</source>
        <translation>,</translation>
    </message>
    <message>
        <source>Short side:</source>
        <translation>短边：</translation>
    </message>
    <message>
        <source> px</source>
        <translation> 像素</translation>
    </message>
    <message>
        <source>Value (normalised RGB):</source>
        <translation>值（归一化 RGB）：</translation>
    </message>
    <message>
        <source>Area (scale):</source>
        <translation>面积（scale）：</translation>
    </message>
    <message>
        <source>Aspect ratio:</source>
        <translation>宽高比：</translation>
    </message>
    <message>
        <source>Angle:</source>
        <translation>角度：</translation>
    </message>
    <message>
        <source>Shift (x, y):</source>
        <translation>平移（x, y）：</translation>
    </message>
    <message>
        <source>Scale:</source>
        <translation>缩放：</translation>
    </message>
    <message>
        <source>Shear (x range, y range):</source>
        <translation>错切（x 范围, y 范围）：</translation>
    </message>
    <message>
        <source>Brightness:</source>
        <translation>亮度：</translation>
    </message>
    <message>
        <source>Contrast:</source>
        <translation>对比度：</translation>
    </message>
    <message>
        <source>Saturation:</source>
        <translation>饱和度：</translation>
    </message>
    <message>
        <source>Hue:</source>
        <translation>色调：</translation>
    </message>
    <message>
        <source>Kernel (odd sizes):</source>
        <translation>卷积核（奇数尺寸）：</translation>
    </message>
    <message>
        <source>Sigma:</source>
        <translation>Sigma：</translation>
    </message>
    <message>
        <source>Factor:</source>
        <translation>系数：</translation>
    </message>
    <message>
        <source>Bits kept:</source>
        <translation>保留位数：</translation>
    </message>
    <message>
        <source>Threshold:</source>
        <translation>阈值：</translation>
    </message>
    <message>
        <source>Operations:</source>
        <translation>操作数：</translation>
    </message>
    <message>
        <source>Magnitude:</source>
        <translation>强度：</translation>
    </message>
    <message>
        <source>Mean:</source>
        <translation>均值：</translation>
    </message>
    <message>
        <source>Clip to 0–1:</source>
        <translation>截断到 0–1：</translation>
    </message>
    <message>
        <source>Magnitude bins:</source>
        <translation>强度档位数：</translation>
    </message>
    <message>
        <source>Alpha:</source>
        <translation>Alpha：</translation>
    </message>
    <message>
        <source>Fill (RGB):</source>
        <translation>填充（RGB）：</translation>
    </message>
    <message>
        <source>Interpolation:</source>
        <translation>插值：</translation>
    </message>
</context>
<context>
    <name>AugmentationText</name>
    <message>
        <source>%1%</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>%1–%2%</source>
        <translation>%1–%2%</translation>
    </message>
    <message>
        <source>%1–%2</source>
        <translation>%1–%2</translation>
    </message>
    <message>
        <source>±%1°</source>
        <translation>±%1°</translation>
    </message>
    <message>
        <source>%1° to %2°</source>
        <translation>%1° 至 %2°</translation>
    </message>
    <message>
        <source>bilinear</source>
        <translation>双线性</translation>
    </message>
    <message>
        <source>fill %1, %2, %3</source>
        <translation>填充 %1, %2, %3</translation>
    </message>
    <message>
        <source>Random resized crop</source>
        <translation>随机缩放裁剪</translation>
    </message>
    <message>
        <source>Resize</source>
        <translation>缩放</translation>
    </message>
    <message>
        <source>Centre crop</source>
        <translation>中心裁剪</translation>
    </message>
    <message>
        <source>Horizontal flip</source>
        <translation>水平翻转</translation>
    </message>
    <message>
        <source>Vertical flip</source>
        <translation>垂直翻转</translation>
    </message>
    <message>
        <source>Rotation</source>
        <translation>旋转</translation>
    </message>
    <message>
        <source>Affine transform</source>
        <translation>仿射变换</translation>
    </message>
    <message>
        <source>Colour jitter</source>
        <translation>颜色抖动</translation>
    </message>
    <message>
        <source>Greyscale</source>
        <translation>灰度</translation>
    </message>
    <message>
        <source>Gaussian blur</source>
        <translation>高斯模糊</translation>
    </message>
    <message>
        <source>Sharpness</source>
        <translation>锐度</translation>
    </message>
    <message>
        <source>Posterise</source>
        <translation>色调分离</translation>
    </message>
    <message>
        <source>Solarise</source>
        <translation>曝光反转</translation>
    </message>
    <message>
        <source>Autocontrast</source>
        <translation>自动对比度</translation>
    </message>
    <message>
        <source>Equalise</source>
        <translation>直方图均衡化</translation>
    </message>
    <message>
        <source>Invert</source>
        <translation>反色</translation>
    </message>
    <message>
        <source>RandAugment</source>
        <translation>RandAugment</translation>
    </message>
    <message>
        <source>TrivialAugment Wide</source>
        <translation>TrivialAugment Wide</translation>
    </message>
    <message>
        <source>Gaussian noise</source>
        <translation>高斯噪声</translation>
    </message>
    <message>
        <source>Random erasing</source>
        <translation>随机擦除</translation>
    </message>
    <message>
        <source>Mixup</source>
        <translation>Mixup</translation>
    </message>
    <message>
        <source>CutMix</source>
        <translation>CutMix</translation>
    </message>
    <message>
        <source>probability %1%</source>
        <translation>概率 %1%</translation>
    </message>
    <message>
        <source>always</source>
        <translation>始终</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
</context>
<context>
    <name>ExportPage</name>
    <message>
        <source>Not measured: the file failed before it could be run.</source>
        <translation>未测量：该文件在运行之前就已失败。</translation>
    </message>
    <message>
        <source>Not measured: a weights file, not a runnable model. Loaded into LibTorch it runs as the original model does (see above).</source>
        <translation>未测量：这是权重文件，而非可运行的模型。加载到 LibTorch 后，其运行情况与原模型相同（见上文）。</translation>
    </message>
    <message>
        <source>Not measured: OpenCV DNN cannot run this graph here, so it was checked with Lathe&apos;s reference runtime, which is not timed. Time it in ONNX Runtime.</source>
        <translation>未测量：OpenCV DNN 无法在此运行该计算图，因此改用 Lathe 的参考运行时进行验证，该运行时不计时。请在 ONNX Runtime 中测量耗时。</translation>
    </message>
    <message>
        <source>Not measured: no runtime in this program runs %1 files at deployment speed; it was checked with Lathe&apos;s reference runtime, which is not timed. Time it in ONNX Runtime.</source>
        <translation>未测量：本程序中没有能以部署速度运行 %1 文件的运行时；已改用 Lathe 的参考运行时进行验证，该运行时不计时。请在 ONNX Runtime 中测量耗时。</translation>
    </message>
    <message>
        <source>Not measured: this export did not time its files.</source>
        <translation>未测量：此次导出未对其文件计时。</translation>
    </message>
    <message>
        <source>Not measured: TFLite files run in LiteRT (on a phone, or with ai-edge-litert in Python); this program checked it with its reference runtime, which is not timed. The README&apos;s benchmark table has LiteRT&apos;s latency on this CPU.</source>
        <translation>此处未测量：TFLite 文件在 LiteRT 中运行（在手机上，或用 Python 的 ai-edge-litert）；本程序用其参考运行时检查了它，参考运行时不计时。README 的基准表列有 LiteRT 在本 CPU 上的延迟。</translation>
    </message>
</context>
<context>
    <name>HelpLinks</name>
    <message>
        <source>What to do</source>
        <translation>解决办法</translation>
    </message>
</context>
<context>
    <name>Recipe</name>
    <message>
        <source>Quick start on the CPU</source>
        <translation>CPU 快速入门</translation>
    </message>
    <message>
        <source>Lathe&apos;s defaults</source>
        <translation>Lathe 默认设置</translation>
    </message>
    <message>
        <source>Pretrained ResNet-18 at 224 px on the GPU.</source>
        <translation>在 GPU 上以 224 像素训练预训练的 ResNet-18。</translation>
    </message>
    <message numerus="yes">
        <source>ResNet-18 from scratch at 32 px, AdamW (2e-3) with a one-cycle schedule, batch 64, %n epoch(s), horizontal flips. On 2 CPU cores it trains the Fashion-MNIST demo to 85-89% validation top-1 within 5 minutes.</source>
        <translation>
            <numerusform>从零开始训练 ResNet-18，32 像素，AdamW（2e-3）配合 one-cycle 学习率计划，批大小 64，%n 个轮次，水平翻转。在 2 个 CPU 核心上，它能在 5 分钟内把 Fashion-MNIST 演示数据训练到 85-89% 的验证 top-1。</numerusform>
        </translation>
    </message>
    <message>
        <source>An epoch takes about %1 s on this machine.</source>
        <translation>在这台机器上一个轮次约需 %1 秒。</translation>
    </message>
</context>
<context>
    <name>RunConfigSchema</name>
    <message>
        <source>The config format version; a file without it is read as version 1, and a file from a newer Lathe is refused.</source>
        <translation>配置格式版本；缺少此项的文件按版本 1 读取，来自更新版本 Lathe 的文件会被拒绝。</translation>
    </message>
    <message>
        <source>Numeric precision of training: fp32, bf16 autocast (CPU or GPU), or fp16 autocast with loss scaling (CUDA only).</source>
        <translation>训练的数值精度：fp32、bf16 自动混合精度（CPU 或 GPU），或带损失缩放的 fp16 自动混合精度（仅限 CUDA）。</translation>
    </message>
    <message>
        <source>The devices to train on, one rank each: &quot;cpu&quot; (may repeat for several CPU ranks) or &quot;cuda:N&quot; (each GPU once); CPU and CUDA are not mixed.</source>
        <translation>用于训练的设备，每个设备一个 rank：“cpu”（可重复以使用多个 CPU rank）或“cuda:N”（每个 GPU 只能出现一次）；不能混用 CPU 和 CUDA。</translation>
    </message>
    <message>
        <source>Seed of every random choice (initialisation, shuffling, augmentation), so a run can be repeated.</source>
        <translation>所有随机选择（初始化、打乱、数据增强）使用的随机种子，使运行可以复现。</translation>
    </message>
    <message>
        <source>The folder holding the converted dataset (dataset.json and its shards); required.</source>
        <translation>存放已转换数据集（dataset.json 及其分片）的文件夹；必填。</translation>
    </message>
    <message>
        <source>The split of the dataset to train on.</source>
        <translation>用于训练的数据集划分。</translation>
    </message>
    <message>
        <source>The split evaluated after every epoch; &quot;&quot; for no validation.</source>
        <translation>每个轮次结束后评估的划分；为 &quot;&quot; 时不进行验证。</translation>
    </message>
    <message>
        <source>Side of the square training crop in pixels; 0 uses the backbone&apos;s default input size.</source>
        <translation>正方形训练裁剪的边长（像素）；0 表示使用骨干网络的默认输入尺寸。</translation>
    </message>
    <message>
        <source>The training augmentation steps in order, each {&quot;type&quot;: ..., &quot;p&quot;: ..., parameters} as torchvision&apos;s transform of the same name; [] for none. Normalization always ends the pipeline.</source>
        <translation>按顺序排列的训练数据增强步骤，每一步为 {&quot;type&quot;: ..., &quot;p&quot;: ..., 参数}，含义与 torchvision 中的同名变换相同；[] 表示不做数据增强。流水线最后总是进行归一化。</translation>
    </message>
    <message>
        <source>Decoding and augmentation threads per rank; 0 shares the CPU cores among the ranks.</source>
        <translation>每个 rank 的解码和数据增强线程数；0 表示在各 rank 之间平分 CPU 核心。</translation>
    </message>
    <message>
        <source>Size in MiB of an in-memory cache of decoded images; 0 turns it off.</source>
        <translation>已解码图像的内存缓存大小（MiB）；0 表示关闭。</translation>
    </message>
    <message>
        <source>Feed batches in channels-last memory layout, which is faster for convolutions on some GPUs.</source>
        <translation>以 channels-last 内存布局输入批次，在某些 GPU 上卷积运算更快。</translation>
    </message>
    <message>
        <source>The backbone architecture: a built-in name such as resnet50 or vit_b_16 (see lathe-cli models), or &quot;torchscript&quot; for model.torchscript.</source>
        <translation>骨干网络架构：内置名称，如 resnet50 或 vit_b_16（见 lathe-cli models），或 &quot;torchscript&quot; 表示使用 model.torchscript。</translation>
    </message>
    <message>
        <source>Channels of the input images; 1 (grayscale) or more than 3 (multispectral) adapts the first convolution.</source>
        <translation>输入图像的通道数；为 1（灰度）或大于 3（多光谱）时会调整第一个卷积层。</translation>
    </message>
    <message>
        <source>Initial weights: a .safetensors or torch.save .pth file, &quot;zoo&quot; for the model zoo&apos;s pretrained weights of the architecture, or &quot;&quot; to train from scratch.</source>
        <translation>初始权重：.safetensors 文件或 torch.save 保存的 .pth 文件；&quot;zoo&quot; 表示使用模型库中该架构的预训练权重；&quot;&quot; 表示从头训练。</translation>
    </message>
    <message>
        <source>A custom backbone saved with torch.jit.save; used when model.arch is &quot;torchscript&quot;.</source>
        <translation>用 torch.jit.save 保存的自定义骨干网络；在 model.arch 为 &quot;torchscript&quot; 时使用。</translation>
    </message>
    <message>
        <source>Output classes of the head; 0 takes the dataset&apos;s class count.</source>
        <translation>分类头的输出类别数；0 表示使用数据集的类别数。</translation>
    </message>
    <message>
        <source>Dropout before the final layer, in [0, 1); a negative value keeps the architecture&apos;s own.</source>
        <translation>最后一层之前的 Dropout，取值范围为 [0, 1)；负值表示保留架构自带的设置。</translation>
    </message>
    <message>
        <source>Units of an extra hidden layer (Linear, ReLU, Dropout) in the head; 0 for none.</source>
        <translation>分类头中额外隐藏层（Linear、ReLU、Dropout）的单元数；0 表示不添加。</translation>
    </message>
    <message>
        <source>Which parameters train: every one (train_all), only the head (head_only), or all but the first frozen_stages stages (up_to_stage).</source>
        <translation>哪些参数参与训练：全部参数（train_all）、仅分类头（head_only），或除前 frozen_stages 个阶段之外的全部参数（up_to_stage）。</translation>
    </message>
    <message>
        <source>up_to_stage: how many stages, counted from the input, are frozen; fewer than the architecture&apos;s stage count.</source>
        <translation>up_to_stage：从输入端起冻结的阶段数；须少于该架构的阶段总数。</translation>
    </message>
    <message>
        <source>Keep every BatchNorm layer&apos;s running statistics fixed (those of frozen stages always are).</source>
        <translation>固定所有 BatchNorm 层的运行统计量（冻结阶段中的 BatchNorm 层总是固定的）。</translation>
    </message>
    <message>
        <source>Discriminative fine-tuning: {stage name: factor} multiplying the learning rate of that stage (stages not named use 1).</source>
        <translation>差异化微调：{阶段名: 系数}，用该系数乘以该阶段的学习率（未列出的阶段使用 1）。</translation>
    </message>
    <message>
        <source>Gradual unfreezing: every this many epochs the last frozen stage starts training; 0 turns it off.</source>
        <translation>逐步解冻：每隔这么多轮次，最后一个被冻结的阶段开始训练；0 表示关闭。</translation>
    </message>
    <message>
        <source>The optimizer: SGD with momentum, AdamW, or RMSprop.</source>
        <translation>优化器：带动量的 SGD、AdamW 或 RMSprop。</translation>
    </message>
    <message>
        <source>The base learning rate, for batch_size images per rank.</source>
        <translation>基础学习率，对应每个 rank 每批 batch_size 张图像。</translation>
    </message>
    <message>
        <source>Images per batch on each rank.</source>
        <translation>每个 rank 上每批的图像数。</translation>
    </message>
    <message>
        <source>Passes over the training split.</source>
        <translation>遍历训练划分的轮次数。</translation>
    </message>
    <message>
        <source>sgd and rmsprop: momentum factor.</source>
        <translation>sgd 和 rmsprop：动量系数。</translation>
    </message>
    <message>
        <source>sgd: use Nesterov momentum (needs momentum &gt; 0).</source>
        <translation>sgd：使用 Nesterov 动量（需要 momentum &gt; 0）。</translation>
    </message>
    <message>
        <source>L2 penalty (decoupled for adamw) applied at every step.</source>
        <translation>每一步施加的 L2 惩罚（adamw 使用解耦形式）。</translation>
    </message>
    <message>
        <source>Exempt biases, normalization weights and learned embeddings from weight decay.</source>
        <translation>偏置、归一化层权重和学习到的嵌入不施加权重衰减。</translation>
    </message>
    <message>
        <source>adamw: the decay rates of the running averages of the gradient and of its square, each in [0, 1).</source>
        <translation>adamw：梯度及其平方的滑动平均的衰减率，各自取值于 [0, 1)。</translation>
    </message>
    <message>
        <source>adamw and rmsprop: small term added to the denominator for numerical stability.</source>
        <translation>adamw 和 rmsprop：为保证数值稳定性而加到分母上的小项。</translation>
    </message>
    <message>
        <source>rmsprop: smoothing constant of the running average of squared gradients.</source>
        <translation>rmsprop：梯度平方滑动平均的平滑常数。</translation>
    </message>
    <message>
        <source>When above 0, gradients are scaled so that their global L2 norm is at most this.</source>
        <translation>大于 0 时，缩放梯度使其全局 L2 范数不超过此值。</translation>
    </message>
    <message>
        <source>Take an optimizer step every this many batches, summing their gradients (a larger effective batch).</source>
        <translation>每隔这么多个批次执行一次优化器更新，并累加这些批次的梯度（相当于更大的有效批大小）。</translation>
    </message>
    <message>
        <source>Share of the target probability spread evenly over all classes.</source>
        <translation>均匀分配到所有类别上的目标概率比例。</translation>
    </message>
    <message>
        <source>focal: how strongly well-classified examples are down-weighted (0 is cross entropy).</source>
        <translation>focal：对已正确分类样本降低权重的强度（0 即为交叉熵）。</translation>
    </message>
    <message>
        <source>How the learning rate changes over training.</source>
        <translation>学习率在训练过程中的变化方式。</translation>
    </message>
    <message>
        <source>Epochs (fractions allowed) of linear warm-up from warmup_start_factor x lr before the schedule starts; not with one_cycle.</source>
        <translation>调度开始前从 warmup_start_factor x lr 开始线性预热的轮次数（可为小数）；不能与 one_cycle 同时使用。</translation>
    </message>
    <message>
        <source>The fraction of lr that warm-up starts from.</source>
        <translation>预热开始时的学习率占 lr 的比例。</translation>
    </message>
    <message>
        <source>step: epochs between two multiplications by gamma.</source>
        <translation>step：两次乘以 gamma 之间间隔的轮次数。</translation>
    </message>
    <message>
        <source>multi_step: the epochs at which the learning rate is multiplied by gamma, increasing and below optimizer.epochs.</source>
        <translation>multi_step：学习率乘以 gamma 的轮次，须递增且小于 optimizer.epochs。</translation>
    </message>
    <message>
        <source>step and multi_step: factor at each decay; exponential: factor per epoch.</source>
        <translation>step 和 multi_step：每次衰减的系数；exponential：每个轮次的系数。</translation>
    </message>
    <message>
        <source>cosine and cosine_restarts: the learning rate at the bottom of the curve.</source>
        <translation>cosine 和 cosine_restarts：曲线最低点的学习率。</translation>
    </message>
    <message>
        <source>cosine_restarts: length in epochs of the first cosine period.</source>
        <translation>cosine_restarts：第一个余弦周期的长度（轮次）。</translation>
    </message>
    <message>
        <source>cosine_restarts: each period is this many times longer than the one before.</source>
        <translation>cosine_restarts：每个周期的长度是前一个周期的多少倍。</translation>
    </message>
    <message>
        <source>one_cycle: the peak learning rate; 0 uses optimizer.lr.</source>
        <translation>one_cycle：峰值学习率；0 表示使用 optimizer.lr。</translation>
    </message>
    <message>
        <source>one_cycle: fraction of training spent rising to the peak.</source>
        <translation>one_cycle：学习率上升到峰值所用的训练比例。</translation>
    </message>
    <message>
        <source>one_cycle: the start learning rate is max_lr divided by this.</source>
        <translation>one_cycle：起始学习率为 max_lr 除以此值。</translation>
    </message>
    <message>
        <source>one_cycle: the final learning rate is the start learning rate divided by this.</source>
        <translation>one_cycle：最终学习率为起始学习率除以此值。</translation>
    </message>
    <message>
        <source>plateau: the metric watched for a lack of improvement.</source>
        <translation>plateau：用于判断是否不再改善的指标。</translation>
    </message>
    <message>
        <source>plateau: factor applied to the learning rate when the metric stalls.</source>
        <translation>plateau：指标停滞时学习率所乘的系数。</translation>
    </message>
    <message>
        <source>plateau: epochs without improvement before the learning rate drops.</source>
        <translation>plateau：学习率下降前允许无改善的轮次数。</translation>
    </message>
    <message>
        <source>plateau: the smallest relative change that counts as an improvement.</source>
        <translation>plateau：算作改善的最小相对变化。</translation>
    </message>
    <message>
        <source>Save a checkpoint every this many optimizer steps; 0 for none by steps.</source>
        <translation>每隔这么多个优化器步保存一个检查点；0 表示不按步数保存。</translation>
    </message>
    <message>
        <source>Save a checkpoint every this many epochs; 0 for none by epochs (the end of training is always saved).</source>
        <translation>每隔这么多轮次保存一个检查点；0 表示不按轮次保存（训练结束时总会保存）。</translation>
    </message>
    <message>
        <source>How many of the latest periodic checkpoints to keep; the best and the last are kept besides.</source>
        <translation>保留最近多少个定期检查点；此外还会保留最佳和最新检查点。</translation>
    </message>
    <message>
        <source>The metric that decides which checkpoint is the best.</source>
        <translation>决定哪个检查点为最佳的指标。</translation>
    </message>
    <message>
        <source>Stop training when the metric has not improved for patience epochs.</source>
        <translation>当指标连续 patience 个轮次未改善时停止训练。</translation>
    </message>
    <message>
        <source>The metric watched by early stopping.</source>
        <translation>早停所监视的指标。</translation>
    </message>
    <message>
        <source>Epochs without improvement before training stops.</source>
        <translation>停止训练前允许无改善的轮次数。</translation>
    </message>
    <message>
        <source>The smallest change of the metric that counts as an improvement.</source>
        <translation>算作改善的指标最小变化量。</translation>
    </message>
    <message>
        <source>Keep an exponential moving average of the weights; validation and the saved best and last models use it.</source>
        <translation>维护权重的指数移动平均 (EMA)；验证以及保存的最佳和最新模型都使用它。</translation>
    </message>
    <message>
        <source>Weight of the old average at each optimizer step (closer to 1 averages longer).</source>
        <translation>每个优化器步中旧平均值所占的权重（越接近 1，平均的时间跨度越长）。</translation>
    </message>
    <message>
        <source>Compute the frozen backbone&apos;s features once and train only the head on them: off, auto (when the backbone is frozen and the training transform is deterministic), or fixed_views (views augmented copies of each image).</source>
        <translation>只计算一次冻结骨干网络的特征，并仅在这些特征上训练分类头：off（关闭）、auto（当骨干网络被冻结且训练变换是确定性的时启用），或 fixed_views（每张图像使用 views 个数据增强副本）。</translation>
    </message>
    <message>
        <source>fixed_views: augmented views computed per image.</source>
        <translation>fixed_views：每张图像计算的数据增强视图数。</translation>
    </message>
    <message>
        <source>Machines taking part in the run.</source>
        <translation>参与本次运行的机器数。</translation>
    </message>
    <message>
        <source>This machine&apos;s index among the nnodes machines, from 0.</source>
        <translation>本机在 nnodes 台机器中的序号，从 0 开始。</translation>
    </message>
    <message>
        <source>&quot;HOST:PORT&quot; where the machines of a multi-machine run meet (node 0 listens there).</source>
        <translation>多机运行中各机器汇合的地址 &quot;HOST:PORT&quot;（节点 0 在此监听）。</translation>
    </message>
    <message>
        <source>Seconds a rank waits for the others (to join, in a gradient exchange) before the run fails naming the rank it lost.</source>
        <translation>一个 rank 等待其他 rank（加入运行、交换梯度）的秒数；超时后运行失败，并指出失去联系的 rank。</translation>
    </message>
    <message>
        <source>Imbalanced classes: nothing, loss weights from the class frequencies (class_weights), or epochs drawn so that classes come equally often (balanced_sampler) or half-way there (sqrt_sampler).</source>
        <translation>类别不平衡：不处理，按类别频率设置损失权重（class_weights），或按权重抽取每个轮次使各类别出现次数相等（balanced_sampler）或折中（sqrt_sampler）。</translation>
    </message>
    <message>
        <source>K-fold cross-validation: 2 or more splits the training split into this many hash-stable folds; 0 turns it off.</source>
        <translation>K 折交叉验证：2 或以上时按哈希将训练集稳定地分成这么多折；0 表示关闭。</translation>
    </message>
    <message>
        <source>With data.folds: the fold (1 to data.folds) held out for validation; the others are trained on.</source>
        <translation>配合 data.folds：留作验证的那一折（1 到 data.folds），其余各折用于训练。</translation>
    </message>
    <message>
        <source>The training loss: cross entropy, or focal loss, which focuses on hard examples; for multi-label datasets binary cross-entropy per label (bce, what cross_entropy means there) or the asymmetric loss.</source>
        <translation>训练损失：交叉熵，或聚焦困难样本的 focal loss；多标签数据集为每个标签的二元交叉熵（bce，此时 cross_entropy 即指它）或非对称损失。</translation>
    </message>
    <message>
        <source>Asymmetric loss: focusing exponent of the negative labels (down-weights easy negatives).</source>
        <translation>非对称损失：负标签的聚焦指数（降低容易负样本的权重）。</translation>
    </message>
    <message>
        <source>Asymmetric loss: focusing exponent of the positive labels.</source>
        <translation>非对称损失：正标签的聚焦指数。</translation>
    </message>
    <message>
        <source>Asymmetric loss: probability margin below which negatives are ignored.</source>
        <translation>非对称损失：低于此概率裕度的负样本被忽略。</translation>
    </message>
    <message>
        <source>Where pixels become normalised floats: on the rank&apos;s device from uint8 batches (on; a quarter of the bytes to copy), in the pipeline (off), or auto (on for CUDA ranks unless mixup or cutmix is on).</source>
        <translation>像素在何处变为归一化的浮点数：在该 rank 的设备上由 uint8 批次归一化（on；复制的字节数为四分之一）、在数据管线中（off），或 auto（CUDA rank 上开启，除非启用了 mixup 或 cutmix）。</translation>
    </message>
    <message>
        <source>Capture forward, loss and backward as one CUDA graph and replay it each step (static shapes; the log names the reason when a run cannot be captured and trains eagerly).</source>
        <translation>将前向、损失和反向传播捕获为一个 CUDA 图，并在每一步重放（要求形状固定；无法捕获时运行以即时模式训练，日志会说明原因）。</translation>
    </message>
    <message>
        <source>Steps between the host&apos;s reads of the loss and accuracy sums kept on the device (also read for each step event, checkpoint and epoch end; cancels and non-finite losses are acted on at these multiples); 0: every step on the CPU, every 25 on CUDA.</source>
        <translation>主机读取保存在设备上的损失与准确率累计值的间隔步数（每个步骤事件、检查点和轮次结束时也会读取；取消和非有限损失在这些倍数步处理）；0：CPU 上每步读取，CUDA 上每 25 步读取。</translation>
    </message>
    <message>
        <source>BatchNorm layers normalise with the statistics of all ranks&apos; batches together (PyTorch&apos;s SyncBatchNorm) instead of each rank&apos;s own.</source>
        <translation>BatchNorm 层使用所有 rank 批次的合并统计量进行归一化（即 PyTorch 的 SyncBatchNorm），而不是各 rank 自己的统计量。</translation>
    </message>
</context>
<context>
    <name>RunPresets</name>
    <message>
        <source>Fine-tune quickly</source>
        <translation>快速微调</translation>
    </message>
    <message>
        <source>Pretrained weights, AdamW at a low learning rate (3e-4), 5 epochs with a short warm-up and a cosine decay, light augmentation, early stopping. Freezing the backbone on the Model page makes it faster still.</source>
        <translation>使用预训练权重，AdamW 配合较低的学习率（3e-4），训练 5 个轮次，短暂预热后余弦衰减，轻度数据增强，并启用早停。在模型页冻结骨干网络可以更快。</translation>
    </message>
    <message>
        <source>Train from scratch</source>
        <translation>从头训练</translation>
    </message>
    <message>
        <source>Random initial weights, SGD with Nesterov momentum at a high learning rate (0.1) after 3 warm-up epochs, 60 epochs with a cosine decay, strong augmentation (crops, flips, colour jitter, TrivialAugment, random erasing), label smoothing.</source>
        <translation>随机初始权重，带 Nesterov 动量的 SGD，经过 3 个预热轮次后使用较高的学习率（0.1），共 60 个轮次并采用余弦衰减，强数据增强（裁剪、翻转、颜色抖动、TrivialAugment、随机擦除），标签平滑。</translation>
    </message>
    <message>
        <source>A preset needs a name.</source>
        <translation>预设需要一个名称。</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is a built-in preset; choose another name.</source>
        <translation>“%1”是内置预设；请选择其他名称。</translation>
    </message>
    <message>
        <source>Cannot create the folder %1.</source>
        <translation>无法创建文件夹 %1。</translation>
    </message>
    <message>
        <source>Cannot delete %1.</source>
        <translation>无法删除 %1。</translation>
    </message>
    <message>
        <source>There is no saved preset &quot;%1&quot;.</source>
        <translation>没有名为“%1”的已保存预设。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::AboutDialog</name>
    <message>
        <source>About Lathe</source>
        <translation>关于 Lathe</translation>
    </message>
    <message>
        <source>none found</source>
        <translation>未找到</translation>
    </message>
    <message>
        <source>Compute threads</source>
        <translation>计算线程</translation>
    </message>
    <message>
        <source>CUDA devices</source>
        <translation>CUDA 设备</translation>
    </message>
    <message>
        <source>&lt;h2&gt;Lathe %1&lt;/h2&gt;&lt;p&gt;A workbench for training image classifiers.&lt;/p&gt;</source>
        <translation>&lt;h2&gt;Lathe %1&lt;/h2&gt;&lt;p&gt;训练图像分类器的工作台。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Free software under the GNU General Public License, version 3 or later.</source>
        <translation>自由软件，以 GNU 通用公共许可证第 3 版或更高版本发布。</translation>
    </message>
    <message>
        <source>%1: no samples yet</source>
        <translation>%1：尚无样本</translation>
    </message>
    <message>
        <source>%1: p50 %2 ms, p99 %3 ms, max %4 ms (%5 samples)</source>
        <translation>%1：p50 %2 ms，p99 %3 ms，最大 %4 ms（%5 个样本）</translation>
    </message>
    <message>
        <source>LibTorch parallel back ends:</source>
        <translation>LibTorch 并行后端：</translation>
    </message>
    <message>
        <source>Diagnostics</source>
        <translation>诊断信息</translation>
    </message>
    <message>
        <source>&lt;b&gt;Event-loop latency&lt;/b&gt; (how late a periodic timer fires on the window&apos;s thread; under 16 ms at p99 keeps the window smooth):</source>
        <translation>&lt;b&gt;事件循环延迟&lt;/b&gt;（窗口线程上周期性定时器触发的延后时间；p99 低于 16 ms 时窗口保持流畅）：</translation>
    </message>
    <message>
        <source>Copy details</source>
        <translation>复制详细信息</translation>
    </message>
    <message>
        <source>Copy the versions and diagnostics to the clipboard, for a bug report.</source>
        <translation>将版本和诊断信息复制到剪贴板，用于提交错误报告。</translation>
    </message>
    <message>
        <source>Event-loop latency:</source>
        <translation>事件循环延迟：</translation>
    </message>
    <message>
        <source>Not measured (no application event loop).</source>
        <translation>未测量（没有应用程序事件循环）。</translation>
    </message>
    <message>
        <source>Last minute</source>
        <translation>最近一分钟</translation>
    </message>
    <message>
        <source>Since start</source>
        <translation>自启动以来</translation>
    </message>
    <message>
        <source>%1, CPU only</source>
        <translation>%1，仅 CPU</translation>
    </message>
    <message>
        <source>%1 with CUDA %2</source>
        <translation>%1，带 CUDA %2</translation>
    </message>
</context>
<context>
    <name>lathe::ui::AugmentationEditor</name>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>Down</source>
        <translation>下移</translation>
    </message>
    <message>
        <source>Standard Recipe</source>
        <translation>标准方案</translation>
    </message>
    <message>
        <source>Applied to every training image in this order. Evaluation always uses resize and center crop only.</source>
        <translation>按此顺序应用于每张训练图像。评估时始终只使用缩放和中心裁剪。</translation>
    </message>
    <message>
        <source>Append a step of the chosen type with its default parameters.</source>
        <translation>以默认参数追加所选类型的步骤。</translation>
    </message>
    <message>
        <source>torchvision&apos;s ImageNet training recipe: random resized crop and horizontal flip.</source>
        <translation>torchvision 的 ImageNet 训练方案：随机缩放裁剪和水平翻转。</translation>
    </message>
    <message>
        <source>Steps follow torchvision&apos;s transforms, with the same parameters and meaning.</source>
        <translation>各步骤遵循 torchvision 的变换，参数及其含义相同。</translation>
    </message>
    <message>
        <source>The chosen step&apos;s chance and parameters.</source>
        <translation>所选步骤的应用概率和参数。</translation>
    </message>
    <message>
        <source>torchvision: %1</source>
        <translation>torchvision：%1</translation>
    </message>
</context>
<context>
    <name>lathe::ui::AugmentationPreviewGrid</name>
    <message>
        <source>Re-roll</source>
        <translation>重新随机</translation>
    </message>
    <message>
        <source>Draw new random parameters for the same images.</source>
        <translation>为相同的图像重新抽取随机参数。</translation>
    </message>
    <message>
        <source>Convert a dataset to shards on the Data page to preview augmentations.</source>
        <translation>请在数据页将数据集转换为分片，以预览数据增强效果。</translation>
    </message>
    <message numerus="yes">
        <source>%n image(s) of the training split at %1 × %1 pixels, seed %2.</source>
        <translation>
            <numerusform>训练划分中的 %n 张图像，尺寸 %1 × %1 像素，随机种子 %2。</numerusform>
        </translation>
    </message>
    <message>
        <source>Cannot preview: %1</source>
        <translation>无法预览：%1</translation>
    </message>
</context>
<context>
    <name>lathe::ui::AugmentationStepForm</name>
    <message>
        <source>%</source>
        <translation>%</translation>
    </message>
    <message>
        <source>Chance that the step is applied to an image (torchvision&apos;s p).</source>
        <translation>该步骤应用于图像的概率（torchvision 的 p）。</translation>
    </message>
    <message>
        <source>Probability:</source>
        <translation>概率：</translation>
    </message>
    <message>
        <source>Nearest</source>
        <translation>最近邻</translation>
    </message>
    <message>
        <source>Bilinear</source>
        <translation>双线性</translation>
    </message>
    <message>
        <source>Random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>Erase with random values instead of the values given.</source>
        <translation>使用随机值而非给定值进行擦除。</translation>
    </message>
    <message>
        <source>image size</source>
        <translation>图像尺寸</translation>
    </message>
</context>
<context>
    <name>lathe::ui::BackboneTableModel</name>
    <message>
        <source>cached</source>
        <translation>已缓存</translation>
    </message>
    <message>
        <source>downloadable</source>
        <translation>可下载</translation>
    </message>
    <message>
        <source>none in catalog</source>
        <translation>目录中没有</translation>
    </message>
    <message>
        <source>%1 M</source>
        <translation>%1 M</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>Multiply-adds per image at the default input size, in billions.</source>
        <translation>默认输入尺寸下每张图像的乘加运算次数，单位为十亿。</translation>
    </message>
    <message>
        <source>ImageNet-1K top-1 accuracy of torchvision&apos;s default weights.</source>
        <translation>torchvision 默认权重在 ImageNet-1K 上的 Top-1 准确率。</translation>
    </message>
    <message>
        <source>Whether torchvision&apos;s default weights are in the local cache, can be downloaded, or are missing from the catalog.</source>
        <translation>torchvision 的默认权重是已在本地缓存中、可以下载，还是目录中没有。</translation>
    </message>
    <message>
        <source>Backbone</source>
        <translation>骨干网络</translation>
    </message>
    <message>
        <source>Family</source>
        <translation>系列</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>GFLOPs</source>
        <translation>GFLOPs</translation>
    </message>
    <message>
        <source>Input</source>
        <translation>输入尺寸</translation>
    </message>
    <message>
        <source>ImageNet top-1</source>
        <translation>ImageNet Top-1</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
</context>
<context>
    <name>lathe::ui::CalibrationPlot</name>
    <message>
        <source>Confidence (top probability)</source>
        <translation>置信度（最高概率）</translation>
    </message>
    <message>
        <source>Accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <source>Recall</source>
        <translation>召回率</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精确率</translation>
    </message>
    <message>
        <source>Mean confidence</source>
        <translation>平均置信度</translation>
    </message>
    <message>
        <source>Perfect calibration</source>
        <translation>完美校准</translation>
    </message>
    <message>
        <source>%1 (AP %2)</source>
        <translation>%1（AP %2）</translation>
    </message>
    <message>
        <source>%1 (no positives)</source>
        <translation>%1（无正样本）</translation>
    </message>
    <message>
        <source>No evaluation to show.</source>
        <translation>没有可显示的评估结果。</translation>
    </message>
    <message>
        <source>Expected calibration error (ECE): %1; largest bin gap (MCE): %2. Bars at the diagonal mean the model&apos;s confidence matches how often it is right.</source>
        <translation>期望校准误差（ECE）：%1；最大分箱差距（MCE）：%2。柱条位于对角线上表示模型的置信度与其实际正确率相符。</translation>
    </message>
    <message numerus="yes">
        <source>%n precision-recall curve(s); the legend is hidden with more than 12 classes.</source>
        <translation>
            <numerusform>%n 条精确率-召回率曲线；类别超过 12 个时隐藏图例。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::ClassBalanceChart</name>
    <message>
        <source>No usable images to count.</source>
        <translation>没有可统计的可用图像。</translation>
    </message>
    <message>
        <source>Class</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Usable images</source>
        <translation>可用图像</translation>
    </message>
    <message numerus="yes">
        <source>%1, %2: %n image(s)</source>
        <translation>
            <numerusform>%1，%2：%n 张图像</numerusform>
        </translation>
    </message>
    <message>
        <source>Label</source>
        <translation>标签</translation>
    </message>
</context>
<context>
    <name>lathe::ui::ClassMetricsModel</name>
    <message>
        <source>macro avg</source>
        <translation>宏平均</translation>
    </message>
    <message>
        <source>weighted avg</source>
        <translation>加权平均</translation>
    </message>
    <message>
        <source>Of the images predicted as this class, the share that truly are.</source>
        <translation>在预测为此类别的图像中，真正属于此类别的比例。</translation>
    </message>
    <message>
        <source>Of this class&apos;s images, the share predicted as this class.</source>
        <translation>在此类别的图像中，被预测为此类别的比例。</translation>
    </message>
    <message>
        <source>The harmonic mean of precision and recall.</source>
        <translation>精确率和召回率的调和平均数。</translation>
    </message>
    <message>
        <source>Images of this class in the evaluated split.</source>
        <translation>被评估划分中此类别的图像数。</translation>
    </message>
    <message>
        <source>One-vs-rest accuracy: the share of all images correctly called this class or not this class.</source>
        <translation>一对其余准确率：所有图像中被正确判定为属于或不属于此类别的比例。</translation>
    </message>
    <message>
        <source>Class</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精确率</translation>
    </message>
    <message>
        <source>Recall</source>
        <translation>召回率</translation>
    </message>
    <message>
        <source>F1</source>
        <translation>F1</translation>
    </message>
    <message>
        <source>Support</source>
        <translation>样本数</translation>
    </message>
    <message>
        <source>Accuracy</source>
        <translation>准确率</translation>
    </message>
    <message>
        <source>The evaluated split has no image of this class, so this metric is undefined.</source>
        <translation>被评估划分中没有此类别的图像，因此该指标无定义。</translation>
    </message>
    <message>
        <source>no images</source>
        <translation>无图像</translation>
    </message>
</context>
<context>
    <name>lathe::ui::ConfusionMatrixView</name>
    <message numerus="yes">
        <source>True: %1
Predicted: %2
%n image(s), %3 of the true class</source>
        <translation>
            <numerusform>真实：%1
预测：%2
%n 张图像，占真实类别的 %3</numerusform>
        </translation>
    </message>
    <message>
        <source>No evaluation to show.</source>
        <translation>没有可显示的评估结果。</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>预测类别</translation>
    </message>
    <message>
        <source>True</source>
        <translation>真实类别</translation>
    </message>
</context>
<context>
    <name>lathe::ui::ConvertDialog</name>
    <message>
        <source>Convert %1 to Shards</source>
        <translation>将 %1 转换为分片</translation>
    </message>
    <message>
        <source>Writes the usable images of %1 as TFRecord shards with an index beside each and a dataset.json listing classes, counts, shards and the files left out. The image folder is not changed.</source>
        <translation>将 %1 的可用图像写入 TFRecord 分片，每个分片旁附带索引，并写入列出类别、数量、分片和被排除文件的 dataset.json。图像文件夹不会被修改。</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
    <message>
        <source>The folder has train, val and test folders: they decide the splits.</source>
        <translation>该文件夹含有 train、val 和 test 文件夹：由它们决定划分。</translation>
    </message>
    <message>
        <source>Each image&apos;s split comes from a seeded hash of its path; the catalog&apos;s fractions and seed give the shards the splits the Data page shows.</source>
        <translation>每张图像的划分由其路径的带种子哈希决定；使用目录中的比例和种子，分片的划分与数据页显示的一致。</translation>
    </message>
    <message>
        <source>Decides the splits (when the folder has no split folders) and the order of the records across a split&apos;s shards. The same seed gives the same shards.</source>
        <translation>决定划分（当文件夹没有划分文件夹时）以及记录在各分片中的顺序。相同的种子产生相同的分片。</translation>
    </message>
    <message>
        <source>Size:</source>
        <translation>大小：</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>Records per shard:</source>
        <translation>每个分片的记录数：</translation>
    </message>
    <message>
        <source>Re-encode large images as JPEG</source>
        <translation>将大图像重新编码为 JPEG</translation>
    </message>
    <message>
        <source>Otherwise every file is stored byte for byte.</source>
        <translation>否则每个文件都按原始字节存储。</translation>
    </message>
    <message>
        <source> px</source>
        <translation> 像素</translation>
    </message>
    <message>
        <source>Longer side above:</source>
        <translation>长边超过：</translation>
    </message>
    <message>
        <source>Quality:</source>
        <translation>质量：</translation>
    </message>
    <message>
        <source>Output folder:</source>
        <translation>输出文件夹：</translation>
    </message>
    <message>
        <source>Validation:</source>
        <translation>验证：</translation>
    </message>
    <message>
        <source>Test:</source>
        <translation>测试：</translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation>种子：</translation>
    </message>
    <message>
        <source>Shard size:</source>
        <translation>分片大小：</translation>
    </message>
    <message>
        <source>Convert</source>
        <translation>转换</translation>
    </message>
    <message>
        <source>Choose an output folder for the shards.</source>
        <translation>请为分片选择输出文件夹。</translation>
    </message>
    <message>
        <source>The output folder must be a full path.</source>
        <translation>输出文件夹必须是完整路径。</translation>
    </message>
    <message>
        <source>%1 exists and is not a folder.</source>
        <translation>%1 已存在且不是文件夹。</translation>
    </message>
    <message>
        <source>%1 already exists and is not empty; choose a new or empty folder.</source>
        <translation>%1 已存在且不为空；请选择新的或空的文件夹。</translation>
    </message>
    <message>
        <source>The output folder must not be inside the image folder %1.</source>
        <translation>输出文件夹不能位于图像文件夹 %1 之内。</translation>
    </message>
    <message>
        <source>Validation and test together must be below 100 % (now %L1 %).</source>
        <translation>验证和测试之和必须低于 100 %（当前为 %L1 %）。</translation>
    </message>
    <message>
        <source>The seed must be a whole number from 0 to 18446744073709551615.</source>
        <translation>种子必须是 0 到 18446744073709551615 之间的整数。</translation>
    </message>
    <message>
        <source>The image folder %1 is not there any more.</source>
        <translation>图像文件夹 %1 已不存在。</translation>
    </message>
    <message>
        <source>Output folder for the shards</source>
        <translation>分片的输出文件夹</translation>
    </message>
    <message>
        <source>A new or empty folder for the shards, their indexes and dataset.json. Default: the project&apos;s datasets folder.</source>
        <translation>用于存放分片、索引和 dataset.json 的新文件夹或空文件夹。默认：项目的数据集文件夹。</translation>
    </message>
    <message>
        <source>Share of each class&apos;s images for validation when the folder has no split folders. Default: the catalog&apos;s value (10 %).</source>
        <translation>当文件夹没有划分文件夹时，每个类别中用于验证的图像比例。默认：目录中的值（10 %）。</translation>
    </message>
    <message>
        <source>Share of each class&apos;s images for the test split when the folder has no split folders. Default: the catalog&apos;s value (10 %).</source>
        <translation>当文件夹没有划分文件夹时，每个类别中用于测试划分的图像比例。默认：目录中的值（10 %）。</translation>
    </message>
    <message>
        <source>Start a new shard when the next record would pass this size. Default: 64 MiB.</source>
        <translation>当下一条记录会超过此大小时开始新的分片。默认：64 MiB。</translation>
    </message>
    <message>
        <source>Put this many records in each shard (the last one may hold fewer).</source>
        <translation>每个分片放入这么多条记录（最后一个分片可能更少）。</translation>
    </message>
    <message>
        <source>Images whose longer side is larger are scaled down to this size and stored as JPEG; smaller ones are kept as they are. Default: 1,024 px.</source>
        <translation>长边大于此值的图像会缩小到此尺寸并以 JPEG 存储；较小的图像保持原样。默认：1,024 像素。</translation>
    </message>
    <message>
        <source>JPEG quality of re-encoded images, 1 to 100. Default: 90.</source>
        <translation>重新编码图像的 JPEG 质量，1 到 100。默认：90。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::DataPage</name>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Import Folder…</source>
        <translation>导入文件夹…</translation>
    </message>
    <message>
        <source>A folder with one sub-folder per class, optionally under train, val and test folders. Nothing in it is changed.</source>
        <translation>每个类别一个子文件夹的文件夹，可位于 train、val 和 test 文件夹之下。其中的内容不会被修改。</translation>
    </message>
    <message>
        <source>Import the Demo Images</source>
        <translation>导入演示图像</translation>
    </message>
    <message>
        <source>Re-import</source>
        <translation>重新导入</translation>
    </message>
    <message>
        <source>Scan the dataset&apos;s folder again: new and changed files are read, removed ones leave the catalog, and your exclusions and relabels are kept.</source>
        <translation>重新扫描数据集文件夹：读取新增和修改的文件，已删除的文件移出目录，并保留你的排除和重新标注。</translation>
    </message>
    <message>
        <source>Dataset:</source>
        <translation>数据集：</translation>
    </message>
    <message>
        <source>All splits</source>
        <translation>全部划分</translation>
    </message>
    <message>
        <source>Every status</source>
        <translation>全部状态</translation>
    </message>
    <message>
        <source>Usable</source>
        <translation>可用</translation>
    </message>
    <message>
        <source>Rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>重复</translation>
    </message>
    <message>
        <source>Excluded</source>
        <translation>已排除</translation>
    </message>
    <message>
        <source>Class:</source>
        <translation>类别：</translation>
    </message>
    <message>
        <source>Split:</source>
        <translation>划分：</translation>
    </message>
    <message>
        <source>Status:</source>
        <translation>状态：</translation>
    </message>
    <message>
        <source>Images</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>Class Balance</source>
        <translation>类别分布</translation>
    </message>
    <message>
        <source>Rejected Files</source>
        <translation>被拒绝的文件</translation>
    </message>
    <message>
        <source>Near Duplicates</source>
        <translation>近似重复</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <source>Save the list (relative path, status, reason) as a CSV file</source>
        <translation>将列表（相对路径、状态、原因）保存为 CSV 文件</translation>
    </message>
    <message>
        <source>Project folder: %1</source>
        <translation>项目文件夹：%1</translation>
    </message>
    <message>
        <source>Datasets folder: %1</source>
        <translation>数据集文件夹：%1</translation>
    </message>
    <message>
        <source>Demo images: %1 (%2 training and %3 test images of 10 Fashion-MNIST classes, as class folders ready for import)</source>
        <translation>演示图像：%1（10 个 Fashion-MNIST 类别的 %2 张训练图像和 %3 张测试图像，按类别文件夹存放，可直接导入）</translation>
    </message>
    <message>
        <source>Reading the catalog…</source>
        <translation>正在读取目录…</translation>
    </message>
    <message>
        <source>The catalog cannot be read: %1</source>
        <translation>无法读取目录：%1</translation>
    </message>
    <message>
        <source>This project has no dataset yet. Import a folder of images with one sub-folder per class (optionally under train, val and test folders). Lathe checks every file and records why it refuses one; the folder itself is never changed.</source>
        <translation>此项目还没有数据集。请导入每个类别一个子文件夹的图像文件夹（可位于 train、val 和 test 文件夹之下）。Lathe 会检查每个文件并记录拒绝的原因；文件夹本身不会被修改。</translation>
    </message>
    <message>
        <source>Rejected Files (%L1)</source>
        <translation>被拒绝的文件（%L1）</translation>
    </message>
    <message>
        <source>Near Duplicates (%L1)</source>
        <translation>近似重复（%L1）</translation>
    </message>
    <message>
        <source>All classes</source>
        <translation>全部类别</translation>
    </message>
    <message>
        <source>Showing %1 of %2 images</source>
        <translation>显示 %2 张图像中的 %1 张</translation>
    </message>
    <message numerus="yes">
        <source>%1 · imported %2 · %3 images: %4 usable, %5 rejected, %6 duplicates, %7 excluded · %n class(es)</source>
        <translation>
            <numerusform>%1 · 导入于 %2 · %3 张图像：%4 张可用，%5 张被拒绝，%6 张重复，%7 张已排除 · %n 个类别</numerusform>
        </translation>
    </message>
    <message>
        <source>Import %1</source>
        <translation>导入 %1</translation>
    </message>
    <message>
        <source>Import a folder of images</source>
        <translation>导入图像文件夹</translation>
    </message>
    <message>
        <source>Import finished: %1 added, %2 changed, %3 removed, %4 unchanged; %5 usable, %6 rejected, %7 duplicates, %8 groups of near duplicates.</source>
        <translation>导入完成：新增 %1，修改 %2，删除 %3，未变 %4；可用 %5，被拒绝 %6，重复 %7，近似重复 %8 组。</translation>
    </message>
    <message>
        <source>Cannot import the folder</source>
        <translation>无法导入文件夹</translation>
    </message>
    <message>
        <source>Import cancelled; the catalog is as it was.</source>
        <translation>导入已取消；目录保持原样。</translation>
    </message>
    <message>
        <source>Importing %1…</source>
        <translation>正在导入 %1…</translation>
    </message>
    <message>
        <source>%1-rejected.csv</source>
        <translation>%1-rejected.csv</translation>
    </message>
    <message>
        <source>Export the rejected files</source>
        <translation>导出被拒绝的文件</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Cannot export the list</source>
        <translation>无法导出列表</translation>
    </message>
    <message>
        <source>Convert to Shards…</source>
        <translation>转换为分片…</translation>
    </message>
    <message>
        <source>Write the dataset&apos;s usable images as TFRecord shards for training, with a dataset.json that lists them.</source>
        <translation>将数据集的可用图像写入用于训练的 TFRecord 分片，并附带列出它们的 dataset.json。</translation>
    </message>
    <message>
        <source>Open Converted Dataset…</source>
        <translation>打开已转换的数据集…</translation>
    </message>
    <message>
        <source>Show the shards and counts of a dataset converted before (its dataset.json).</source>
        <translation>显示之前转换的数据集（其 dataset.json）的分片和数量。</translation>
    </message>
    <message>
        <source>Shards</source>
        <translation>分片</translation>
    </message>
    <message>
        <source>A conversion is running; see the Jobs panel.</source>
        <translation>正在转换；请查看任务面板。</translation>
    </message>
    <message>
        <source>dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>Converted %1 records into %2 shards (%3) in %4; %5 files left out, %6 re-encoded.</source>
        <translation>已将 %1 条记录转换为 %2 个分片（%3），位于 %4；排除 %5 个文件，重新编码 %6 个。</translation>
    </message>
    <message>
        <source>Cannot convert to shards</source>
        <translation>无法转换为分片</translation>
    </message>
    <message>
        <source>Conversion cancelled; no output folder was written.</source>
        <translation>转换已取消；未写入输出文件夹。</translation>
    </message>
    <message>
        <source>Converting %1 to shards in %2…</source>
        <translation>正在将 %1 转换为分片，输出到 %2…</translation>
    </message>
    <message>
        <source>Open a converted dataset</source>
        <translation>打开已转换的数据集</translation>
    </message>
    <message>
        <source>Converted datasets (dataset.json)</source>
        <translation>已转换的数据集 (dataset.json)</translation>
    </message>
    <message>
        <source>Cannot open the converted dataset</source>
        <translation>无法打开已转换的数据集</translation>
    </message>
    <message>
        <source>Shards (%L1)</source>
        <translation>分片（%L1）</translation>
    </message>
    <message numerus="yes">
        <source>%1: %2 records in %n shard(s)</source>
        <translation>
            <numerusform>%1：%n 个分片中共 %2 条记录</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 · converted from %2 · %3</source>
        <translation>%1 · 转换自 %2 · %3</translation>
    </message>
    <message numerus="yes">
        <source>%n shard(s) · %1 records · %2 · %3 re-encoded · %4 of %5 files left out</source>
        <translation>
            <numerusform>%n 个分片 · %1 条记录 · %2 · 重新编码 %3 个 · %5 个文件中排除 %4 个</numerusform>
        </translation>
    </message>
    <message>
        <source>Next: Convert to Shards…</source>
        <translation>下一步：转换为分片…</translation>
    </message>
    <message>
        <source>Before training on these shards:</source>
        <translation>在这些分片上训练之前：</translation>
    </message>
    <message>
        <source>This dataset was imported before near duplicates were grouped by their distance to a representative: Re-import it to find them.</source>
        <translation>此数据集导入时，近似重复尚未按与代表图像的距离分组：请重新导入以找出它们。</translation>
    </message>
    <message numerus="yes">
        <source>A group gathers the images whose perceptual hash (%1 bits) differs from its representative&apos;s, the first image, in at most %n bit(s).</source>
        <translation>
            <numerusform>每组包含感知哈希（%1 位）与该组代表图像（即第一张图像）的感知哈希最多相差 %n 位的图像。</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (the representative)</source>
        <translation>%1（代表图像）</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>and %L1 more</source>
        <translation>还有 %L1 项</translation>
    </message>
    <message>
        <source>No two images of this dataset are that close.</source>
        <translation>此数据集中没有如此接近的两张图像。</translation>
    </message>
    <message>
        <source>The dataset %1 is not converted yet. Training reads record shards, not the image folder: Convert to Shards writes its usable images, with your exclusions and relabels, as TFRecord shards. Open Converted Dataset… shows shards written before.</source>
        <translation>数据集 %1 尚未转换。训练读取的是记录分片，而不是图像文件夹：“转换为分片”会把其中可用的图像（连同你的排除和重新标注）写成 TFRecord 分片。“打开已转换的数据集…”可显示之前写出的分片。</translation>
    </message>
    <message>
        <source>Suspected Label Errors</source>
        <translation>疑似标注错误</translation>
    </message>
    <message>
        <source>Suspected Label Errors (%L1)</source>
        <translation>疑似标注错误（%L1）</translation>
    </message>
    <message>
        <source>Import with Labels File…</source>
        <translation>用标签文件导入…</translation>
    </message>
    <message>
        <source>A multi-label dataset: a labels file (CSV with the columns path and labels, the labels separated by ; or |, or JSON lines) gives each image of a folder its set of labels. Nothing in either is changed.</source>
        <translation>多标签数据集：标签文件（含 path 和 labels 两列的 CSV，标签之间用 ; 或 | 分隔；或 JSON Lines）为文件夹中的每张图像给出一组标签。两者都不会被修改。</translation>
    </message>
    <message>
        <source>Label Frequencies</source>
        <translation>标签频次</translation>
    </message>
    <message>
        <source>Label:</source>
        <translation>标签：</translation>
    </message>
    <message>
        <source>All labels</source>
        <translation>所有标签</translation>
    </message>
    <message numerus="yes">
        <source>%1 · labels from %2 · imported %3 · %4 images: %5 usable, %6 rejected, %7 duplicates, %8 excluded · multi-label, %n label(s)</source>
        <translation>
            <numerusform>%1 · 标签来自 %2 · 导入于 %3 · %4 张图像：%5 张可用，%6 张被拒绝，%7 张重复，%8 张已排除 · 多标签，%n 个标签</numerusform>
        </translation>
    </message>
    <message>
        <source>Choose the labels file</source>
        <translation>选择标签文件</translation>
    </message>
    <message>
        <source>Labels files (*.csv *.jsonl *.json);;All files (*)</source>
        <translation>标签文件 (*.csv *.jsonl *.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Choose the image folder the labels file&apos;s paths are relative to</source>
        <translation>选择图像文件夹（标签文件中的路径相对于它）</translation>
    </message>
</context>
<context>
    <name>lathe::ui::DevicePicker</name>
    <message>
        <source>Looking for devices…</source>
        <translation>正在查找设备…</translation>
    </message>
    <message numerus="yes">
        <source>The CUDA driver sees %n GPU(s), but this build of LibTorch has no CUDA support: training runs on the CPU.</source>
        <translation>
            <numerusform>CUDA 驱动检测到 %n 个 GPU，但此 LibTorch 构建不支持 CUDA：训练将在 CPU 上运行。</numerusform>
        </translation>
    </message>
    <message>
        <source>No CUDA devices found: training runs on the CPU.</source>
        <translation>未找到 CUDA 设备：训练将在 CPU 上运行。</translation>
    </message>
    <message>
        <source>Check several GPUs to train data-parallel, one rank per GPU (the batch size is per GPU).</source>
        <translation>勾选多个 GPU 可进行数据并行训练，每个 GPU 一个 rank（批大小按每个 GPU 计）。</translation>
    </message>
    <message>
        <source>%1 — not on this machine</source>
        <translation>%1 — 不在本机上</translation>
    </message>
    <message>
        <source>CPU — %1, %2 RAM</source>
        <translation>CPU — %1，%2 内存</translation>
    </message>
    <message>
        <source>%1 — %2, %3</source>
        <translation>%1 — %2，%3</translation>
    </message>
    <message>
        <source>memory unknown</source>
        <translation>显存未知</translation>
    </message>
    <message numerus="yes">
        <source> (%n rank(s))</source>
        <translation>
            <numerusform>（%n 个 rank）</numerusform>
        </translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message numerus="yes">
        <source>%n CPU rank(s) sharing %1 RAM</source>
        <translation>
            <numerusform>%n 个 CPU rank 共享 %1 内存</numerusform>
        </translation>
    </message>
    <message>
        <source>the CPU (%1 RAM)</source>
        <translation>CPU（%1 内存）</translation>
    </message>
</context>
<context>
    <name>lathe::ui::EvaluatePage</name>
    <message>
        <source>Test-time augmentation</source>
        <translation>测试时增强</translation>
    </message>
    <message>
        <source>Evaluate</source>
        <translation>评估</translation>
    </message>
    <message>
        <source>Save Metrics CSV…</source>
        <translation>保存指标 CSV…</translation>
    </message>
    <message>
        <source>Save Metrics JSON…</source>
        <translation>保存指标 JSON…</translation>
    </message>
    <message>
        <source>Normalised by true class</source>
        <translation>按真实类别归一化</translation>
    </message>
    <message>
        <source>Average the predictions of five crops and their mirror images (ten views per image): slower, often slightly more accurate.</source>
        <translation>对五个裁剪区域及其镜像（每张图像十个视图）的预测取平均：速度较慢，但通常略为准确。</translation>
    </message>
    <message>
        <source>Run the checkpoint over the split as a job; the results are stored in the project.</source>
        <translation>以任务形式在该划分上运行检查点；结果保存在项目中。</translation>
    </message>
    <message>
        <source>Precision, recall, F1 and support per class, with the averages.</source>
        <translation>每个类别的精确率、召回率、F1 和样本数，以及平均值。</translation>
    </message>
    <message>
        <source>Every metric of the evaluation: the per-class table, confusion matrix, calibration and precision-recall curves.</source>
        <translation>评估的全部指标：逐类别表格、混淆矩阵、校准曲线和精确率-召回率曲线。</translation>
    </message>
    <message>
        <source>Split:</source>
        <translation>划分：</translation>
    </message>
    <message>
        <source>Confusion Matrix</source>
        <translation>混淆矩阵</translation>
    </message>
    <message>
        <source>Per Class</source>
        <translation>逐类别</translation>
    </message>
    <message>
        <source>Calibration</source>
        <translation>校准</translation>
    </message>
    <message>
        <source>Predict</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>Save Matrix CSV…</source>
        <translation>保存矩阵 CSV…</translation>
    </message>
    <message>
        <source>The confusion matrix as shown (counts, or shares when normalised).</source>
        <translation>按当前显示保存混淆矩阵（计数，或归一化后的比例）。</translation>
    </message>
    <message>
        <source>Click a cell to list its images.</source>
        <translation>点击单元格以列出其中的图像。</translation>
    </message>
    <message>
        <source>Open a project to evaluate its runs.</source>
        <translation>请打开一个项目以评估其运行。</translation>
    </message>
    <message>
        <source>No runs yet: train one on the Train page, then evaluate it here.</source>
        <translation>尚无运行：请先在训练页训练一个，然后在此评估。</translation>
    </message>
    <message>
        <source>This run has no stored evaluation for this checkpoint and split: press Evaluate.</source>
        <translation>此运行没有该检查点和划分的已保存评估结果：请点击“评估”。</translation>
    </message>
    <message>
        <source>Cannot read the stored evaluations: %1</source>
        <translation>无法读取已保存的评估结果：%1</translation>
    </message>
    <message>
        <source>Evaluating %1 (%2 checkpoint, %3 split)…</source>
        <translation>正在评估 %1（%2 检查点，%3 划分）…</translation>
    </message>
    <message>
        <source>Evaluation failed</source>
        <translation>评估失败</translation>
    </message>
    <message>
        <source>The evaluation was cancelled.</source>
        <translation>评估已取消。</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Cannot read the evaluation</source>
        <translation>无法读取评估结果</translation>
    </message>
    <message>
        <source>n/a</source>
        <translation>无</translation>
    </message>
    <message numerus="yes">
        <source>%1, %2 checkpoint (step %3), %4 split%5: top-1 %6, top-5 %7 over %n image(s); evaluated %8.</source>
        <translation>
            <numerusform>%1，%2 检查点（第 %3 步），%4 划分%5：在 %n 张图像上 Top-1 %6，Top-5 %7；评估于 %8。</numerusform>
        </translation>
    </message>
    <message>
        <source> with TTA</source>
        <translation>（使用 TTA）</translation>
    </message>
    <message numerus="yes">
        <source>%n record(s) could not be read and were left out.</source>
        <translation>
            <numerusform>%n 条记录无法读取，已被排除。</numerusform>
        </translation>
    </message>
    <message>
        <source>Cannot change the catalog</source>
        <translation>无法更改目录</translation>
    </message>
    <message>
        <source>Select a run first: its checkpoint classifies the files.</source>
        <translation>请先选择一个运行：将用它的检查点对文件分类。</translation>
    </message>
    <message>
        <source>Save Metrics JSON</source>
        <translation>保存指标 JSON</translation>
    </message>
    <message>
        <source>Save CSV</source>
        <translation>保存 CSV</translation>
    </message>
    <message>
        <source>JSON files (*.json)</source>
        <translation>JSON 文件 (*.json)</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Cannot save</source>
        <translation>无法保存</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Confusion matrix&lt;/b&gt;&lt;/p&gt;&lt;p&gt;Rows are the true classes, columns the predicted ones; each cell counts the images of that pair, shaded by the share of its row. The diagonal holds the correct predictions. Click a cell to list exactly its images in the gallery; open one to see its Grad-CAM heat map, relabel it or exclude it.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;混淆矩阵&lt;/b&gt;&lt;/p&gt;&lt;p&gt;行是真实类别，列是预测类别；每个单元格统计该组合的图像数，颜色深浅表示其占该行的比例。对角线是预测正确的图像。点击单元格，图库中即列出恰好属于该单元格的图像；打开其中一张可查看其 Grad-CAM 热力图，也可重新标注或排除它。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>This run has no checkpoint yet: it can be evaluated once it has written one.</source>
        <translation>此运行尚无检查点：写入检查点后即可评估。</translation>
    </message>
    <message>
        <source>Next: Train a Model on the Train Page</source>
        <translation>下一步：在训练页训练模型</translation>
    </message>
    <message>
        <source>False Positives</source>
        <translation>误报</translation>
    </message>
    <message>
        <source>Per Label</source>
        <translation>按标签</translation>
    </message>
    <message>
        <source>Rows: a label the images carry; columns: a label predicted for them that they do not carry. Normalised: the share of the row label&apos;s images. Click a cell to list its images.</source>
        <translation>行：图像带有的标签；列：为这些图像预测、但它们并不带有的标签。归一化：占带有行标签的图像的比例。点击单元格可列出其图像。</translation>
    </message>
    <message numerus="yes">
        <source>%1, %2 checkpoint (step %3), %4 split%5, multi-label: mAP %6 (micro %7) over %n image(s); evaluated %8.</source>
        <translation>
            <numerusform>%1，%2 检查点（第 %3 步），%4 划分%5，多标签：在 %n 张图像上 mAP %6（微平均 %7）；评估于 %8。</numerusform>
        </translation>
    </message>
    <message>
        <source>F1 micro %1, macro %2 at the tuned thresholds.</source>
        <translation>调优阈值下 F1 微平均 %1，宏平均 %2。</translation>
    </message>
    <message>
        <source>F1 micro %1, macro %2 at the edited thresholds.</source>
        <translation>编辑后的阈值下 F1 微平均 %1，宏平均 %2。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::ExportPage</name>
    <message>
        <source>Preprocessing in the graph</source>
        <translation>在计算图中预处理</translation>
    </message>
    <message>
        <source>Softmax output</source>
        <translation>Softmax 输出</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Open Folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>Copy Path</source>
        <translation>复制路径</translation>
    </message>
    <message>
        <source>Formats</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>ONNX FP32</source>
        <translation>ONNX FP32</translation>
    </message>
    <message>
        <source>ONNX FP16</source>
        <translation>ONNX FP16</translation>
    </message>
    <message>
        <source>ONNX INT8 (quantised)</source>
        <translation>ONNX INT8（量化）</translation>
    </message>
    <message>
        <source>TorchScript</source>
        <translation>TorchScript</translation>
    </message>
    <message>
        <source>safetensors + model.json</source>
        <translation>safetensors + model.json</translation>
    </message>
    <message>
        <source>Opset 13 or newer, dynamic batch; preprocessing and labels in the metadata. Checked with OpenCV DNN.</source>
        <translation>Opset 13 或更高版本，动态批大小；预处理参数和标签写入元数据。已用 OpenCV DNN 验证。</translation>
    </message>
    <message>
        <source>Half-precision weights: half the size; checked against the original within a relative bound.</source>
        <translation>半精度权重：大小减半；在相对误差范围内与原模型比对校验。</translation>
    </message>
    <message>
        <source>QDQ quantisation: INT8 weights per channel, activations calibrated on training images. Fails when its validation accuracy drops more than one point below the original&apos;s.</source>
        <translation>QDQ 量化：INT8 逐通道权重，激活值在训练图像上校准。若其验证准确率比原模型低超过一个百分点，则判定为失败。</translation>
    </message>
    <message>
        <source>A TorchScript module (model.pt) for LibTorch and PyTorch.</source>
        <translation>适用于 LibTorch 和 PyTorch 的 TorchScript 模块（model.pt）。</translation>
    </message>
    <message>
        <source>The weights under torchvision&apos;s parameter names, with model.json describing the model.</source>
        <translation>使用 torchvision 参数名保存的权重，并附带描述模型的 model.json。</translation>
    </message>
    <message>
        <source>Options</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>Min-max</source>
        <translation>最小-最大值</translation>
    </message>
    <message>
        <source>Percentile</source>
        <translation>百分位数</translation>
    </message>
    <message>
        <source>Entropy (KL)</source>
        <translation>熵（KL 散度）</translation>
    </message>
    <message>
        <source>How INT8 activation ranges are chosen from the calibration images.</source>
        <translation>如何根据校准图像确定 INT8 激活值的范围。</translation>
    </message>
    <message>
        <source>Training images run through the model to calibrate INT8 activations.</source>
        <translation>送入模型以校准 INT8 激活值的训练图像数量。</translation>
    </message>
    <message>
        <source>INT8 calibration:</source>
        <translation>INT8 校准：</translation>
    </message>
    <message>
        <source>Calibration images:</source>
        <translation>校准图像数：</translation>
    </message>
    <message>
        <source>Export and verify every chosen format as a job.</source>
        <translation>以任务形式导出并验证所有选中的格式。</translation>
    </message>
    <message>
        <source>Output folder:</source>
        <translation>输出文件夹：</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Max abs diff</source>
        <translation>最大绝对误差</translation>
    </message>
    <message>
        <source>Top-1 agreement</source>
        <translation>Top-1 一致率</translation>
    </message>
    <message>
        <source>Accuracy (original)</source>
        <translation>准确率（原模型）</translation>
    </message>
    <message>
        <source>Latency b1 (ms)</source>
        <translation>延迟 b1（ms）</translation>
    </message>
    <message>
        <source>Latency b32 (ms)</source>
        <translation>延迟 b32（ms）</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Copy the export folder&apos;s path to the clipboard.</source>
        <translation>将导出文件夹的路径复制到剪贴板。</translation>
    </message>
    <message>
        <source>Created</source>
        <translation>创建时间</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Checkpoint</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>Previous exports of this project (select one to show its report):</source>
        <translation>此项目之前的导出（选择一项以显示其报告）：</translation>
    </message>
    <message>
        <source>Open a project to export its runs.</source>
        <translation>请打开一个项目以导出其运行。</translation>
    </message>
    <message>
        <source>passed</source>
        <translation>已通过</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>已失败</translation>
    </message>
    <message>
        <source>Cannot read the previous exports: %1</source>
        <translation>无法读取之前的导出：%1</translation>
    </message>
    <message>
        <source>No runs yet: train one on the Train page, then export it here.</source>
        <translation>尚无运行：请先在训练页训练一个，然后在此导出。</translation>
    </message>
    <message>
        <source>This run has no checkpoint yet: it can be exported once it has written one.</source>
        <translation>此运行尚无检查点：写入检查点后即可导出。</translation>
    </message>
    <message>
        <source>Choose at least one format.</source>
        <translation>请至少选择一种格式。</translation>
    </message>
    <message>
        <source>Export Folder</source>
        <translation>导出文件夹</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Exporting %1 (%2) to %3…</source>
        <translation>正在将 %1（%2）导出到 %3…</translation>
    </message>
    <message>
        <source>Exported and verified.</source>
        <translation>已导出并验证。</translation>
    </message>
    <message>
        <source>Exported, but some artifacts failed their checks: see the Reason column.</source>
        <translation>已导出，但部分产物未通过检查：请查看“原因”列。</translation>
    </message>
    <message>
        <source>The export failed: %1</source>
        <translation>导出失败：%1</translation>
    </message>
    <message>
        <source>The export was cancelled; files already written stay in the output folder.</source>
        <translation>导出已取消；已写入的文件保留在输出文件夹中。</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>The folder of this export no longer exists: %1</source>
        <translation>此导出的文件夹已不存在：%1</translation>
    </message>
    <message>
        <source>This export failed: %1</source>
        <translation>此导出失败：%1</translation>
    </message>
    <message>
        <source>Every artifact passed its checks.</source>
        <translation>所有产物均通过检查。</translation>
    </message>
    <message>
        <source>Some artifacts failed their checks.</source>
        <translation>部分产物未通过检查。</translation>
    </message>
    <message>
        <source>%1, %2 classes, %3 px input.</source>
        <translation>%1，%2 个类别，输入 %3 像素。</translation>
    </message>
    <message>
        <source>Original model: %1% top-1 on the validation images.</source>
        <translation>原模型：在验证图像上 Top-1 为 %1%。</translation>
    </message>
    <message>
        <source>Original on this CPU: %1 ms per image at batch 1, %2 ms at batch 32.</source>
        <translation>原模型在本机 CPU 上：批大小 1 时每张图像 %1 ms，批大小 32 时 %2 ms。</translation>
    </message>
    <message>
        <source>Folder: %1</source>
        <translation>文件夹：%1</translation>
    </message>
    <message>
        <source>%1% (%2%)</source>
        <translation>%1%（%2%）</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;INT8 calibration&lt;/b&gt;&lt;/p&gt;&lt;p&gt;INT8 files store each activation as an 8-bit integer over a range measured on calibration images of the training split. &lt;i&gt;Min-max&lt;/i&gt; takes the whole observed range; &lt;i&gt;Percentile&lt;/i&gt; clips the rarest extremes (99.99th percentile), which often keeps more precision; &lt;i&gt;Entropy (KL)&lt;/i&gt; picks the range whose 8-bit histogram loses the least information, as TensorRT does. Weights are quantised per channel. The export is verified: an INT8 file more than one point less accurate than the original is marked failed.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;INT8 校准&lt;/b&gt;&lt;/p&gt;&lt;p&gt;INT8 文件把每个激活值存为 8 位整数，其取值范围在训练集的校准图像上测得。&lt;i&gt;最小-最大值&lt;/i&gt;取观测到的整个范围；&lt;i&gt;百分位数&lt;/i&gt;裁掉最罕见的极端值（第 99.99 百分位），通常能保留更多精度；&lt;i&gt;熵（KL 散度）&lt;/i&gt;选取使 8 位直方图信息损失最小的范围，与 TensorRT 的做法相同。权重按通道量化。导出会经过验证：准确率比原模型低一个百分点以上的 INT8 文件会被标记为失败。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Where the files and report.json are written. By default a new folder under the project&apos;s exports folder; a relative path is taken from there.</source>
        <translation>写入文件和 report.json 的位置。默认为项目 exports 文件夹下的新文件夹；相对路径以该文件夹为基准。</translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>未测量</translation>
    </message>
    <message>
        <source>Serve…</source>
        <translation>提供服务…</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Stop the server after the requests in flight are answered.</source>
        <translation>应答完正在处理的请求后停止服务器。</translation>
    </message>
    <message>
        <source>A server is running: stop it to serve another export.</source>
        <translation>已有服务器在运行：先停止它，才能为另一个导出提供服务。</translation>
    </message>
    <message>
        <source>Only an export whose every artifact passed its checks can be served.</source>
        <translation>只有每个文件都通过检查的导出才能提供服务。</translation>
    </message>
    <message>
        <source>Select an export that passed its checks to serve it.</source>
        <translation>选择一个通过检查的导出来提供服务。</translation>
    </message>
    <message>
        <source>Serve this export over HTTP with TensorFlow Serving&apos;s REST API, as a job.</source>
        <translation>以作业形式，通过 HTTP 用 TensorFlow Serving 的 REST API 为此导出提供服务。</translation>
    </message>
    <message>
        <source>Serve Export</source>
        <translation>为导出提供服务</translation>
    </message>
    <message>
        <source>The NAME in /v1/models/NAME: letters, digits, &apos;_&apos;, &apos;-&apos; and &apos;.&apos;.</source>
        <translation>/v1/models/NAME 中的 NAME：字母、数字、“_”、“-”和“.”。</translation>
    </message>
    <message>
        <source>127.0.0.1: this computer only; 0.0.0.0: every network interface (anyone who can reach this computer can then use the model).</source>
        <translation>127.0.0.1：仅本机；0.0.0.0：所有网络接口（能访问本机的任何人都可以使用该模型）。</translation>
    </message>
    <message>
        <source>TensorFlow Serving&apos;s REST port is 8501; the first free one from there is offered.</source>
        <translation>TensorFlow Serving 的 REST 端口是 8501；将提供从它开始的第一个空闲端口。</translation>
    </message>
    <message>
        <source>Port %1 is in use; port %2 is free.</source>
        <translation>端口 %1 已被占用；端口 %2 空闲。</translation>
    </message>
    <message>
        <source>Export: %1</source>
        <translation>导出：%1</translation>
    </message>
    <message>
        <source>Serve</source>
        <translation>提供服务</translation>
    </message>
    <message>
        <source>Model name:</source>
        <translation>模型名称：</translation>
    </message>
    <message>
        <source>Address:</source>
        <translation>地址：</translation>
    </message>
    <message>
        <source>Port:</source>
        <translation>端口：</translation>
    </message>
    <message>
        <source>A model name is letters, digits, &apos;_&apos;, &apos;-&apos; and &apos;.&apos; (at most 128 characters).</source>
        <translation>模型名称由字母、数字、“_”、“-”和“.”组成（最多 128 个字符）。</translation>
    </message>
    <message>
        <source>Give the address to listen on, such as 127.0.0.1.</source>
        <translation>请给出要监听的地址，例如 127.0.0.1。</translation>
    </message>
    <message>
        <source>Port %1 is in use on %2; port %3 is free and now chosen: press Serve to use it.</source>
        <translation>%2 上的端口 %1 已被占用；已改选空闲端口 %3：按“提供服务”使用它。</translation>
    </message>
    <message>
        <source>Cannot listen on %1 port %2: the port is in use or the address is not one of this computer&apos;s.</source>
        <translation>无法在 %1 的端口 %2 上监听：端口已被占用，或该地址不属于本机。</translation>
    </message>
    <message>
        <source>Starting the server for %1…</source>
        <translation>正在为 %1 启动服务器…</translation>
    </message>
    <message>
        <source>Serving %1 at %2</source>
        <translation>正在 %2 为 %1 提供服务</translation>
    </message>
    <message>
        <source>Requests: %1, errors: %2, last latency: %3 ms</source>
        <translation>请求：%1，错误：%2，最近延迟：%3 毫秒</translation>
    </message>
    <message>
        <source>The server stopped: %1</source>
        <translation>服务器已停止：%1</translation>
    </message>
    <message>
        <source>Stopped serving %1.</source>
        <translation>已停止为 %1 提供服务。</translation>
    </message>
    <message>
        <source>Stopping %1 after the requests in flight…</source>
        <translation>应答完正在处理的请求后停止 %1…</translation>
    </message>
    <message>
        <source>TFLite FP32</source>
        <translation>TFLite FP32</translation>
    </message>
    <message>
        <source>TFLite FP16</source>
        <translation>TFLite FP16</translation>
    </message>
    <message>
        <source>TFLite INT8 (full integer)</source>
        <translation>TFLite INT8（全整数）</translation>
    </message>
    <message>
        <source>TensorFlow Lite for phones and edge devices (model.tflite, NHWC, batch 1), with labels.txt beside it and the labels, mean and std in its metadata.</source>
        <translation>用于手机和边缘设备的 TensorFlow Lite（model.tflite，NHWC，批大小 1），旁边附 labels.txt，元数据中含类别名、均值和标准差。</translation>
    </message>
    <message>
        <source>TFLite with float16 weights (half the size), computed in float32 as TFLite&apos;s float16 quantisation does.</source>
        <translation>float16 权重的 TFLite（大小减半），按 TFLite 的 float16 量化方式以 float32 计算。</translation>
    </message>
    <message>
        <source>Full-integer TFLite for microcontrollers and NPUs: int8 weights and activations, uint8 (or int8) pixels in and scores out, calibrated on training images. Fails when its validation accuracy drops more than one point below the original&apos;s.</source>
        <translation>面向微控制器和 NPU 的全整数 TFLite：int8 权重和激活，输入 uint8（或 int8）像素、输出分数，在训练图像上校准。若其验证准确率比原模型低一个百分点以上，则判为失败。</translation>
    </message>
    <message>
        <source>The ONNX, TorchScript and float TFLite models take uint8 pixels (N, H, W, C) and normalise them inside; without it they take normalised float32 (N, C, H, W; TFLite: N, H, W, C). TFLite INT8 always takes pixels.</source>
        <translation>ONNX、TorchScript 和浮点 TFLite 模型接收 uint8 像素 (N, H, W, C) 并在内部归一化；否则接收归一化后的 float32 (N, C, H, W；TFLite 为 N, H, W, C)。TFLite INT8 始终接收像素。</translation>
    </message>
    <message>
        <source>The ONNX, TorchScript and TFLite models output probabilities instead of logits.</source>
        <translation>ONNX、TorchScript 和 TFLite 模型输出概率而非 logits。</translation>
    </message>
    <message>
        <source>uint8</source>
        <translation>uint8</translation>
    </message>
    <message>
        <source>int8</source>
        <translation>int8</translation>
    </message>
    <message>
        <source>The TFLite INT8 model&apos;s input and output type: uint8 (pixels 0-255, as Android&apos;s image classification samples expect) or int8 (pixel - 128, for NPUs that take int8 only).</source>
        <translation>TFLite INT8 模型的输入和输出类型：uint8（像素 0-255，Android 图像分类示例所用）或 int8（像素 - 128，用于只接受 int8 的 NPU）。</translation>
    </message>
    <message>
        <source>TFLite INT8 input/output:</source>
        <translation>TFLite INT8 输入/输出：</translation>
    </message>
</context>
<context>
    <name>lathe::ui::FilePredictionPanel</name>
    <message>
        <source>Predict Files…</source>
        <translation>预测文件…</translation>
    </message>
    <message>
        <source>Save Results CSV…</source>
        <translation>保存结果 CSV…</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Prediction</source>
        <translation>预测结果</translation>
    </message>
    <message>
        <source>Probability</source>
        <translation>概率</translation>
    </message>
    <message>
        <source>Top classes</source>
        <translation>最可能的类别</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Drop image files or folders anywhere on this page, or choose them with Predict Files…, to classify them with the selected run and checkpoint.</source>
        <translation>将图像文件或文件夹拖放到本页任意位置，或通过“预测文件…”选择，即可用所选运行和检查点对其分类。</translation>
    </message>
    <message>
        <source>Predict Files</source>
        <translation>预测文件</translation>
    </message>
    <message>
        <source>Images (*.jpg *.jpeg *.png *.bmp *.tif *.tiff *.webp)</source>
        <translation>图像 (*.jpg *.jpeg *.png *.bmp *.tif *.tiff *.webp)</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message numerus="yes">
        <source>Classifying %n file(s) or folder(s)…</source>
        <translation>
            <numerusform>正在分类 %n 个文件或文件夹…</numerusform>
        </translation>
    </message>
    <message>
        <source>Cannot classify the files: %1</source>
        <translation>无法对文件分类：%1</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) classified</source>
        <translation>
            <numerusform>已分类 %n 个文件</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n could not be read</source>
        <translation>
            <numerusform>%n 个无法读取</numerusform>
        </translation>
    </message>
    <message>
        <source>Save Results CSV</source>
        <translation>保存结果 CSV</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Classifying… %1%</source>
        <translation>正在分类… %1%</translation>
    </message>
    <message>
        <source>The classification was cancelled.</source>
        <translation>分类已取消。</translation>
    </message>
    <message>
        <source>Label</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Score</source>
        <translation>得分</translation>
    </message>
    <message>
        <source>Threshold</source>
        <translation>阈值</translation>
    </message>
    <message>
        <source>In label set</source>
        <translation>在标签集中</translation>
    </message>
    <message>
        <source>The selected file&apos;s labels: each label&apos;s sigmoid score against the label&apos;s threshold (tuned on the validation split when the checkpoint was written). A label is in the file&apos;s label set when its score reaches its threshold.</source>
        <translation>所选文件的标签：每个标签的 sigmoid 得分与该标签阈值的比较（阈值在写入检查点时于验证集上调优）。得分达到阈值的标签属于该文件的标签集。</translation>
    </message>
    <message>
        <source>Label set</source>
        <translation>标签集</translation>
    </message>
    <message>
        <source>Top score</source>
        <translation>最高得分</translation>
    </message>
    <message>
        <source>Scores (threshold)</source>
        <translation>得分（阈值）</translation>
    </message>
    <message>
        <source>The labels whose sigmoid score reaches the label&apos;s threshold, highest score first.</source>
        <translation>sigmoid 得分达到该标签阈值的标签，按得分从高到低排列。</translation>
    </message>
    <message>
        <source>Every label&apos;s score against its threshold, highest score first; ✓ marks the labels in the label set.</source>
        <translation>每个标签的得分与其阈值的比较，按得分从高到低排列；✓ 表示属于标签集的标签。</translation>
    </message>
    <message>
        <source>No label reaches its threshold</source>
        <translation>没有标签达到其阈值</translation>
    </message>
    <message>
        <source>Labels: %1</source>
        <translation>标签：%1</translation>
    </message>
    <message>
        <source>✓ yes</source>
        <translation>✓ 是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>✓ %1 %2 ≥ %3</source>
        <translation>✓ %1 %2 ≥ %3</translation>
    </message>
    <message>
        <source>%1 %2 &lt; %3</source>
        <translation>%1 %2 &lt; %3</translation>
    </message>
    <message>
        <source>Multi-label model: a file gets every label whose score reaches the label&apos;s threshold.</source>
        <translation>多标签模型：文件获得所有得分达到各自阈值的标签。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::GradCamPanel</name>
    <message>
        <source>Grad-CAM is not available for transformer backbones.</source>
        <translation>Grad-CAM 不适用于 Transformer 骨干网络。</translation>
    </message>
    <message>
        <source>%1
True: %2, predicted: %3 (loss %4)</source>
        <translation>%1
真实：%2，预测：%3（损失 %4）</translation>
    </message>
    <message>
        <source>The evaluation does not say where its images are.</source>
        <translation>评估结果中没有记录图像的位置。</translation>
    </message>
    <message>
        <source>%1: the image cannot be decoded (%2)</source>
        <translation>%1：无法解码图像（%2）</translation>
    </message>
    <message>
        <source>No heat map: %1</source>
        <translation>无热力图：%1</translation>
    </message>
    <message>
        <source>No heat map: cancelled.</source>
        <translation>没有热力图：已取消。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::GradCamView</name>
    <message>
        <source>Heat map</source>
        <translation>热力图</translation>
    </message>
    <message>
        <source>The class whose evidence the heat map shows.</source>
        <translation>热力图所显示证据对应的类别。</translation>
    </message>
    <message>
        <source>Heat map opacity</source>
        <translation>热力图不透明度</translation>
    </message>
    <message>
        <source>Explain:</source>
        <translation>解释：</translation>
    </message>
    <message>
        <source>Predicted class</source>
        <translation>预测类别</translation>
    </message>
    <message>
        <source>Select an image in the gallery to see it here with its heat map.</source>
        <translation>在图库中选择一张图像，即可在此查看它及其热力图。</translation>
    </message>
    <message>
        <source>No image selected.</source>
        <translation>未选择图像。</translation>
    </message>
    <message>
        <source>Computing the heat map…</source>
        <translation>正在计算热力图…</translation>
    </message>
    <message>
        <source>The heat map does not match the image&apos;s size.</source>
        <translation>热力图与图像尺寸不匹配。</translation>
    </message>
    <message>
        <source>Heat map for %1 (p = %2)</source>
        <translation>%1 的热力图（p = %2）</translation>
    </message>
    <message>
        <source>%1. %2: %3</source>
        <translation>%1. %2：%3</translation>
    </message>
    <message>
        <source>At this input size the model&apos;s last feature map is a single cell, so the heat map cannot point at a region: train at a larger image size to see where it looks.</source>
        <translation>在此输入尺寸下，模型最后一层特征图只有一个单元，热力图无法指向具体区域：请使用更大的图像尺寸训练，以查看模型关注的位置。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::HelpViewer</name>
    <message>
        <source>Lathe Help</source>
        <translation>Lathe 帮助</translation>
    </message>
    <message>
        <source>Every document of the guide and its sections.</source>
        <translation>指南的所有文档及其章节。</translation>
    </message>
    <message>
        <source>Back</source>
        <translation>后退</translation>
    </message>
    <message>
        <source>Back (%1)</source>
        <translation>后退（%1）</translation>
    </message>
    <message>
        <source>Forward</source>
        <translation>前进</translation>
    </message>
    <message>
        <source>Forward (%1)</source>
        <translation>前进（%1）</translation>
    </message>
    <message>
        <source>%1 — Lathe Help</source>
        <translation>%1 — Lathe 帮助</translation>
    </message>
</context>
<context>
    <name>lathe::ui::ImageListModel</name>
    <message>
        <source>Rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>重复</translation>
    </message>
    <message>
        <source>Excluded</source>
        <translation>已排除</translation>
    </message>
    <message>
        <source>OK</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>Class: %1</source>
        <translation>类别：%1</translation>
    </message>
    <message>
        <source>Split: %1</source>
        <translation>划分：%1</translation>
    </message>
    <message>
        <source>Status: %1</source>
        <translation>状态：%1</translation>
    </message>
    <message>
        <source>Reason: %1</source>
        <translation>原因：%1</translation>
    </message>
    <message>
        <source>Labels: %1</source>
        <translation>标签：%1</translation>
    </message>
</context>
<context>
    <name>lathe::ui::ImageViewer</name>
    <message>
        <source>%1: cannot decode (%2)</source>
        <translation>%1：无法解码（%2）</translation>
    </message>
    <message>
        <source>1 (as stored)</source>
        <translation>1（按存储方向）</translation>
    </message>
    <message>
        <source>2 (mirrored)</source>
        <translation>2（水平镜像）</translation>
    </message>
    <message>
        <source>3 (rotated 180°)</source>
        <translation>3（旋转 180°）</translation>
    </message>
    <message>
        <source>4 (mirrored vertically)</source>
        <translation>4（垂直镜像）</translation>
    </message>
    <message>
        <source>5 (mirrored, rotated 90° counter-clockwise)</source>
        <translation>5（镜像并逆时针旋转 90°）</translation>
    </message>
    <message>
        <source>6 (rotated 90° clockwise)</source>
        <translation>6（顺时针旋转 90°）</translation>
    </message>
    <message>
        <source>7 (mirrored, rotated 90° clockwise)</source>
        <translation>7（镜像并顺时针旋转 90°）</translation>
    </message>
    <message>
        <source>8 (rotated 90° counter-clockwise)</source>
        <translation>8（逆时针旋转 90°）</translation>
    </message>
    <message>
        <source>Relabel</source>
        <translation>重新标注</translation>
    </message>
    <message>
        <source>Image</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>Path:</source>
        <translation>路径：</translation>
    </message>
    <message>
        <source>Size:</source>
        <translation>大小：</translation>
    </message>
    <message>
        <source>Dimensions:</source>
        <translation>尺寸：</translation>
    </message>
    <message>
        <source>Channels:</source>
        <translation>通道数：</translation>
    </message>
    <message>
        <source>Bit depth:</source>
        <translation>位深：</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <source>EXIF orientation:</source>
        <translation>EXIF 方向：</translation>
    </message>
    <message>
        <source>SHA-256:</source>
        <translation>SHA-256：</translation>
    </message>
    <message>
        <source>Class:</source>
        <translation>类别：</translation>
    </message>
    <message>
        <source>Split:</source>
        <translation>划分：</translation>
    </message>
    <message>
        <source>Status:</source>
        <translation>状态：</translation>
    </message>
    <message>
        <source>Reason:</source>
        <translation>原因：</translation>
    </message>
    <message>
        <source>Leave this image out of training, or take it back. The file is not touched.</source>
        <translation>将此图像排除在训练之外，或重新纳入。文件本身不会被改动。</translation>
    </message>
    <message>
        <source>Give this image another class. The file stays where it is.</source>
        <translation>为此图像指定另一个类别。文件位置保持不变。</translation>
    </message>
    <message>
        <source>Image — %1</source>
        <translation>图像 — %1</translation>
    </message>
    <message numerus="yes">
        <source>%n byte(s)</source>
        <translation>
            <numerusform>%n 字节</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 bytes (%2)</source>
        <translation>%1 字节（%2）</translation>
    </message>
    <message>
        <source>%1 × %2 pixels</source>
        <translation>%1 × %2 像素</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>%1 bits per channel</source>
        <translation>每通道 %1 位</translation>
    </message>
    <message>
        <source>not computed</source>
        <translation>未计算</translation>
    </message>
    <message>
        <source>%1 (relabelled; folder: %2)</source>
        <translation>%1（已重新标注；文件夹：%2）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Include</source>
        <translation>纳入</translation>
    </message>
    <message>
        <source>Exclude</source>
        <translation>排除</translation>
    </message>
    <message>
        <source>This file cannot be shown: %1</source>
        <translation>无法显示此文件：%1</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>Save Labels</source>
        <translation>保存标签</translation>
    </message>
    <message>
        <source>The labels this image carries: tick or untick them, then Save Labels. The labels file is not changed; the catalog keeps your edit.</source>
        <translation>这张图像的标签：勾选或取消勾选，然后点击“保存标签”。标签文件不会被修改；目录会保存您的编辑。</translation>
    </message>
    <message>
        <source>Labels:</source>
        <translation>标签：</translation>
    </message>
    <message>
        <source>%1 (edited; not the labels file&apos;s)</source>
        <translation>%1（已编辑，不同于标签文件）</translation>
    </message>
    <message>
        <source>Tick at least one label; to leave the image out of training, exclude it.</source>
        <translation>请至少勾选一个标签；若要让这张图像不参与训练，请排除它。</translation>
    </message>
    <message>
        <source>Give this image the ticked labels. Convert to Shards uses them.</source>
        <translation>为这张图像设置所勾选的标签。“转换为分片”会使用它们。</translation>
    </message>
    <message>
        <source>Add Label</source>
        <translation>添加标签</translation>
    </message>
    <message>
        <source>Reset to Labels File</source>
        <translation>恢复为标签文件中的标签</translation>
    </message>
    <message>
        <source>New label…</source>
        <translation>新标签…</translation>
    </message>
    <message>
        <source>A label this dataset does not have yet: Add Label gives it to this image and makes it one of the dataset&apos;s labels. The labels file is not changed.</source>
        <translation>数据集中尚无的标签：“添加标签”会把它赋予这张图像，并使其成为数据集的标签之一。标签文件不会被修改。</translation>
    </message>
    <message>
        <source>Give this image the typed label, with the ticked ones. A new name becomes one of the dataset&apos;s labels; Convert to Shards makes it a class.</source>
        <translation>为这张图像设置输入的标签以及已勾选的标签。新名称会成为数据集的标签之一；“转换为分片”会把它作为一个类别。</translation>
    </message>
    <message>
        <source>Undo your edits: give this image the label set its labels file gave it at the import. Your ticks are dropped.</source>
        <translation>撤销您的编辑：为这张图像恢复导入时标签文件给出的标签集。当前的勾选将被丢弃。</translation>
    </message>
    <message>
        <source>This image has its labels file&apos;s set; there is no edit to undo.</source>
        <translation>这张图像的标签集与标签文件一致；没有可撤销的编辑。</translation>
    </message>
    <message>
        <source>Cannot add a label: %1.</source>
        <translation>无法添加标签：%1。</translation>
    </message>
    <message>
        <source>Cannot add the label &quot;%1&quot;: %2.</source>
        <translation>无法添加标签“%1”：%2。</translation>
    </message>
    <message>
        <source>This image has the label &quot;%1&quot; already.</source>
        <translation>这张图像已有标签“%1”。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::JobListModel</name>
    <message>
        <source>Queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>Job</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
</context>
<context>
    <name>lathe::ui::JobsPanel</name>
    <message>
        <source>Cancel Job</source>
        <translation>取消任务</translation>
    </message>
    <message>
        <source>Clear Finished</source>
        <translation>清除已结束</translation>
    </message>
</context>
<context>
    <name>lathe::ui::LabelCooccurrenceChart</name>
    <message numerus="yes">
        <source>%1: %n usable image(s) carry it</source>
        <translation>
            <numerusform>%1：%n 张可用图像带有此标签</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 and %2: %n image(s) carry both, %3 of the %1 images</source>
        <translation>
            <numerusform>%1 和 %2：%n 张图像同时带有两者，占 %1 图像的 %3</numerusform>
        </translation>
    </message>
    <message>
        <source>No labels to show.</source>
        <translation>没有可显示的标签。</translation>
    </message>
    <message>
        <source>Label co-occurrence: usable images carrying both labels (colour: share of the row label&apos;s images)</source>
        <translation>标签共现：同时带有两个标签的可用图像数（颜色：占该行标签图像的比例）</translation>
    </message>
</context>
<context>
    <name>lathe::ui::LabelIssuesModel</name>
    <message>
        <source>Relabelled to %1</source>
        <translation>已重新标注为 %1</translation>
    </message>
    <message>
        <source>Excluded</source>
        <translation>已排除</translation>
    </message>
    <message>
        <source>Label quality: the lower, the more likely the given label is wrong</source>
        <translation>标注质量：越低，给定标注越可能有误</translation>
    </message>
    <message>
        <source>%1
Held out by fold %2; double-click to open it in the viewer</source>
        <translation>%1
由第 %2 折留出；双击可在查看器中打开</translation>
    </message>
    <message>
        <source>Image</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Given label</source>
        <translation>给定标注</translation>
    </message>
    <message>
        <source>Suggested label</source>
        <translation>建议标注</translation>
    </message>
    <message>
        <source>Score</source>
        <translation>得分</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>处理</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>no change</source>
        <translation>无变化</translation>
    </message>
    <message>
        <source>Suggested labels applied</source>
        <translation>已应用建议的标签</translation>
    </message>
    <message>
        <source>Labels now %1</source>
        <translation>当前标签为 %1</translation>
    </message>
    <message>
        <source>The fold whose model predicted this image without training on it</source>
        <translation>其模型未在这张图像上训练、并对其进行预测的那一折</translation>
    </message>
    <message>
        <source>Suggested label set: %1</source>
        <translation>建议的标签集：%1</translation>
    </message>
    <message>
        <source>No label would be left: exclude the image instead</source>
        <translation>将不剩任何标签：请改为排除这张图像</translation>
    </message>
    <message>
        <source>Given labels</source>
        <translation>给定标签</translation>
    </message>
    <message>
        <source>Suggested labels</source>
        <translation>建议标签</translation>
    </message>
    <message>
        <source>Fold</source>
        <translation>折</translation>
    </message>
</context>
<context>
    <name>lathe::ui::LabelIssuesPanel</name>
    <message>
        <source>Find Label Errors</source>
        <translation>查找标注错误</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Relabel to Suggested</source>
        <translation>重新标注为建议类别</translation>
    </message>
    <message>
        <source>Exclude</source>
        <translation>排除</translation>
    </message>
    <message>
        <source>A folds run of the project&apos;s runs folder (one with a folds.json)</source>
        <translation>项目运行文件夹中的交叉验证运行（含 folds.json 的文件夹）</translation>
    </message>
    <message>
        <source>Self-confidence</source>
        <translation>自信度</translation>
    </message>
    <message>
        <source>The predicted probability of the given label: low when the models doubt it</source>
        <translation>给定标注的预测概率：模型怀疑它时较低</translation>
    </message>
    <message>
        <source>Normalized margin</source>
        <translation>归一化间隔</translation>
    </message>
    <message>
        <source>The given label&apos;s probability minus the most probable other class&apos;s: low when another class is clearly preferred</source>
        <translation>给定标注的概率减去其他类别中的最大概率：明显偏向另一类别时较低</translation>
    </message>
    <message>
        <source>Rank the images whose given label the out-of-fold predictions disagree with (confident learning)</source>
        <translation>按折外预测与给定标注的分歧对图像排序（置信学习）</translation>
    </message>
    <message>
        <source>Folds run:</source>
        <translation>交叉验证运行：</translation>
    </message>
    <message>
        <source>Rank by:</source>
        <translation>排序依据：</translation>
    </message>
    <message>
        <source>Each image of a folds run was predicted by a model that never trained on it. Where those predictions confidently disagree with the given label, the label is probably wrong: the most suspicious come first. Nothing changes until you relabel or exclude an image, and then only in the catalog.</source>
        <translation>交叉验证运行中的每张图像都由未在其上训练过的模型预测。若这些预测明确地与给定标注不符，该标注很可能有误：最可疑的排在最前。在您重新标注或排除图像之前不会有任何改动，改动也只写入目录。</translation>
    </message>
    <message>
        <source>Give each selected image the class the predictions suggest. The files stay where they are.</source>
        <translation>将每张选中的图像重新标注为预测建议的类别。文件保持原位。</translation>
    </message>
    <message>
        <source>%1
written %2</source>
        <translation>%1
写入于 %2</translation>
    </message>
    <message>
        <source>there is no dataset.</source>
        <translation>没有数据集。</translation>
    </message>
    <message>
        <source>there is no folds run.</source>
        <translation>没有交叉验证运行。</translation>
    </message>
    <message>
        <source>jobs cannot run here.</source>
        <translation>此处无法运行任务。</translation>
    </message>
    <message>
        <source>Cannot look for label errors: %1</source>
        <translation>无法查找标注错误：%1</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>正在读取 %1…</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message numerus="yes">
        <source>%n suspected label error(s) among %1 images of %2.</source>
        <translation>
            <numerusform>%2 的 %1 张图像中有 %n 个疑似标注错误。</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 of the run&apos;s images are no longer in this dataset, or changed since.</source>
        <translation>该运行中有 %1 张图像已不在此数据集中，或之后已改动。</translation>
    </message>
    <message numerus="yes">
        <source>%n suspected label error(s) among those images cannot be listed.</source>
        <translation>
            <numerusform>这些图像中的 %n 个疑似标注错误无法列出。</numerusform>
        </translation>
    </message>
    <message>
        <source>The predictions agree with every given label.</source>
        <translation>预测与所有给定标注一致。</translation>
    </message>
    <message>
        <source>Cancelled; the list is as it was.</source>
        <translation>已取消；列表保持原样。</translation>
    </message>
    <message>
        <source>SHARD_DIR</source>
        <translation>分片目录</translation>
    </message>
    <message>
        <source>RUNS_DIR/folds</source>
        <translation>运行目录/folds</translation>
    </message>
    <message>
        <source>&lt;p&gt;No folds run in the project&apos;s runs folder yet.&lt;/p&gt;&lt;p&gt;Suspected label errors come from out-of-fold predictions: k-fold cross-validation trains k models, each predicting the images it did not train on. Make a folds run with Cross-Validate on the Train page, or from a terminal, then come back to this tab:&lt;/p&gt;&lt;pre&gt;%1&lt;/pre&gt;</source>
        <translation>&lt;p&gt;项目的运行文件夹中还没有交叉验证运行。&lt;/p&gt;&lt;p&gt;疑似标注错误来自折外预测：k 折交叉验证训练 k 个模型，每个模型预测它未训练过的图像。请在训练页用“交叉验证”或在终端中创建一个交叉验证运行，然后回到此标签页：&lt;/p&gt;&lt;pre&gt;%1&lt;/pre&gt;</translation>
    </message>
    <message>
        <source>Include</source>
        <translation>纳入</translation>
    </message>
    <message>
        <source>Take the selected images back into training.</source>
        <translation>将选中的图像重新纳入训练。</translation>
    </message>
    <message>
        <source>Leave the selected images out of training. The files are not touched.</source>
        <translation>将选中的图像排除在训练之外。文件不会被改动。</translation>
    </message>
    <message>
        <source>Not applied to %1 of the selected images: the suggestion leaves no label; exclude them instead.</source>
        <translation>未应用于所选图像中的 %1 张：建议会使其没有任何标签；请改为排除它们。</translation>
    </message>
    <message>
        <source>Apply Suggested Labels</source>
        <translation>应用建议的标签</translation>
    </message>
    <message>
        <source>Give each selected image the label set the predictions suggest (the given set with the doubtful labels added or removed). The files are not touched.</source>
        <translation>为每张选中的图像设置预测建议的标签集（在给定标签集上添加或移除存疑的标签）。文件不会被改动。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::LabelPrPlot</name>
    <message>
        <source>Recall</source>
        <translation>召回率</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精确率</translation>
    </message>
    <message>
        <source>%1 (AP %2)</source>
        <translation>%1（AP %2）</translation>
    </message>
    <message>
        <source>%1 (no positives)</source>
        <translation>%1（无正样本）</translation>
    </message>
    <message>
        <source>Threshold %1</source>
        <translation>阈值 %1</translation>
    </message>
    <message>
        <source>Select a label in the table to see its precision-recall curve.</source>
        <translation>在表格中选择一个标签，查看它的精确率-召回率曲线。</translation>
    </message>
    <message>
        <source>%1 has no image in this split: it has no precision-recall curve.</source>
        <translation>%1 在此划分中没有图像：它没有精确率-召回率曲线。</translation>
    </message>
    <message>
        <source>Precision-recall curve of %1.</source>
        <translation>%1 的精确率-召回率曲线。</translation>
    </message>
    <message>
        <source>%1 at threshold %2: precision %3, recall %4 (the red dot). Lower thresholds move along the curve to the right: more recall, usually less precision.</source>
        <translation>%1 在阈值 %2 下：精确率 %3，召回率 %4（红点）。阈值越低，点沿曲线越往右：召回率更高，精确率通常更低。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::LrFinderPanel</name>
    <message>
        <source>Learning-Rate Finder</source>
        <translation>学习率查找器</translation>
    </message>
    <message>
        <source>Find Learning Rate</source>
        <translation>查找学习率</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Learning-rate finder&lt;/b&gt;&lt;/p&gt;&lt;p&gt;A learning-rate range test (Smith 2015; fastai&apos;s lr_find): real training steps of the current settings from the model&apos;s initial weights, the learning rate growing exponentially from 1e-7 to 10, stopped once the smoothed loss exceeds four times its lowest. A good learning rate lies where the loss falls fastest, before the minimum: &lt;i&gt;valley&lt;/i&gt; (fastai&apos;s default) is about halfway down the longest descent, &lt;i&gt;steepest&lt;/i&gt; where the smoothed loss falls fastest. Nothing is written to disk; the settings change only when you click Use.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;学习率查找器&lt;/b&gt;&lt;/p&gt;&lt;p&gt;学习率范围测试（Smith 2015；fastai 的 lr_find）：以当前设置从模型的初始权重开始进行真实的训练步，学习率从 1e-7 指数增长到 10，当平滑损失超过其最低值的四倍时停止。好的学习率位于损失下降最快之处、在最低点之前：&lt;i&gt;谷值&lt;/i&gt;（fastai 的默认）大约在最长下降段的中点，&lt;i&gt;最陡&lt;/i&gt;是平滑损失下降最快的位置。不会向磁盘写入任何内容；只有点击“使用”时设置才会改变。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Train a few steps with a growing learning rate and suggest one (nothing is saved).</source>
        <translation>以逐渐增大的学习率训练若干步并给出建议（不保存任何内容）。</translation>
    </message>
    <message>
        <source>Stop the test; the settings stay as they are.</source>
        <translation>停止测试；设置保持不变。</translation>
    </message>
    <message>
        <source> steps</source>
        <translation> 步</translation>
    </message>
    <message>
        <source>Optimizer steps of the test, one per learning rate; it stops earlier when the loss diverges.</source>
        <translation>测试的优化器步数，每个学习率一步；损失发散时会提前停止。</translation>
    </message>
    <message>
        <source>Runs the current settings for a few steps with a growing learning rate.</source>
        <translation>以逐渐增大的学习率按当前设置运行若干步。</translation>
    </message>
    <message>
        <source>Set the learning rate to the valley suggestion (fastai&apos;s default).</source>
        <translation>将学习率设为谷值建议（fastai 的默认）。</translation>
    </message>
    <message>
        <source>Set the learning rate to the steepest-descent suggestion.</source>
        <translation>将学习率设为最陡下降建议。</translation>
    </message>
    <message>
        <source>Learning rate (log scale)</source>
        <translation>学习率（对数坐标）</translation>
    </message>
    <message>
        <source>Training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>smoothed loss</source>
        <translation>平滑损失</translation>
    </message>
    <message>
        <source>There are no settings to test.</source>
        <translation>没有可测试的设置。</translation>
    </message>
    <message>
        <source>Jobs cannot run here.</source>
        <translation>此处无法运行任务。</translation>
    </message>
    <message>
        <source>Cannot test: %1</source>
        <translation>无法测试：%1</translation>
    </message>
    <message>
        <source>Starting the test…</source>
        <translation>正在开始测试…</translation>
    </message>
    <message>
        <source>Cancelling after the current step…</source>
        <translation>将在当前步之后取消…</translation>
    </message>
    <message>
        <source>stopped at step %1 of %2, where the loss diverged</source>
        <translation>在第 %1 步（共 %2 步）停止，损失在此发散</translation>
    </message>
    <message>
        <source>stopped at step %1 of %2: the loss was not a number</source>
        <translation>在第 %1 步（共 %2 步）停止：损失不是数值</translation>
    </message>
    <message>
        <source>%1 steps</source>
        <translation>%1 步</translation>
    </message>
    <message>
        <source>Tested on %1 with batch %2: %3. Nothing was saved.</source>
        <translation>在 %1 上以批大小 %2 测试：%3。未保存任何内容。</translation>
    </message>
    <message>
        <source>Cancelled; the settings are unchanged.</source>
        <translation>已取消；设置未改变。</translation>
    </message>
    <message>
        <source>The test failed: %1</source>
        <translation>测试失败：%1</translation>
    </message>
    <message>
        <source>valley %1</source>
        <translation>谷值 %1</translation>
    </message>
    <message>
        <source>steepest %1</source>
        <translation>最陡 %1</translation>
    </message>
    <message>
        <source>Use %1</source>
        <translation>使用 %1</translation>
    </message>
    <message>
        <source>Use %1 (steepest)</source>
        <translation>使用 %1（最陡）</translation>
    </message>
    <message>
        <source>No suggestion yet.</source>
        <translation>暂无建议。</translation>
    </message>
    <message>
        <source>No suggestion: too few steps before the loss diverged. Raise the steps.</source>
        <translation>没有建议：损失发散前的步数太少。请增加步数。</translation>
    </message>
    <message>
        <source>steepest descent %1</source>
        <translation>最陡下降 %1</translation>
    </message>
    <message>
        <source>Suggested learning rate: %1.</source>
        <translation>建议的学习率：%1。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::LrSchedulePreview</name>
    <message>
        <source>Optimizer step</source>
        <translation>优化器步数</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>%1 steps: %2 epochs of %3 steps (%4 training images, batch %5).</source>
        <translation>共 %1 步：%2 个轮次，每轮 %3 步（%4 张训练图像，批大小 %5）。</translation>
    </message>
    <message>
        <source>Choose the shards to see the steps per epoch; one step per epoch is drawn.</source>
        <translation>选择分片后可查看每轮的步数；当前按每轮一步绘制。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::MainWindow</name>
    <message numerus="yes">
        <source>%n job(s) running</source>
        <translation>
            <numerusform>%n 个任务运行中</numerusform>
        </translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行记录</translation>
    </message>
    <message>
        <source>Evaluate</source>
        <translation>评估</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>任务</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New Project…</source>
        <translation>新建项目(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Open Project…</source>
        <translation>打开项目(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>Create &amp;Demo Project</source>
        <translation>创建演示项目(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Close Project</source>
        <translation>关闭项目(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System Language</source>
        <translation>系统语言</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Lathe</source>
        <translation>关于 Lathe(&amp;A)</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>关于 Qt(&amp;Q)</translation>
    </message>
    <message>
        <source>Cannot open the project</source>
        <translation>无法打开项目</translation>
    </message>
    <message>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <source>Cannot create the project</source>
        <translation>无法创建项目</translation>
    </message>
    <message>
        <source>Cannot create the demo project</source>
        <translation>无法创建演示项目</translation>
    </message>
    <message>
        <source>Creating the demo project in %1</source>
        <translation>正在 %1 中创建演示项目</translation>
    </message>
    <message>
        <source>%1 — Lathe</source>
        <translation>%1 — Lathe</translation>
    </message>
    <message>
        <source>Lathe</source>
        <translation>Lathe</translation>
    </message>
    <message>
        <source>Open a Lathe project folder</source>
        <translation>打开 Lathe 项目文件夹</translation>
    </message>
    <message>
        <source>Lathe will use the new language the next time it starts.</source>
        <translation>Lathe 将在下次启动时使用新语言。</translation>
    </message>
    <message>
        <source>Jobs are running</source>
        <translation>有任务正在运行</translation>
    </message>
    <message numerus="yes">
        <source>%n job(s) are still running. Cancel them and quit?</source>
        <translation>
            <numerusform>仍有 %n 个任务正在运行。取消这些任务并退出吗？</numerusform>
        </translation>
    </message>
    <message>
        <source>Waiting for jobs to stop…</source>
        <translation>正在等待任务停止…</translation>
    </message>
    <message>
        <source>What&apos;s &amp;This?</source>
        <translation>这是什么？(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;User Guide</source>
        <translation>用户指南(&amp;U)</translation>
    </message>
    <message>
        <source>The Model page now trains from scratch (random initial weights).</source>
        <translation>模型页现已设置为从头训练（随机初始权重）。</translation>
    </message>
    <message>
        <source>Recipe &quot;%1&quot; chosen: %2</source>
        <translation>已选择方案“%1”：%2</translation>
    </message>
    <message>
        <source>Tune</source>
        <translation>调优</translation>
    </message>
</context>
<context>
    <name>lathe::ui::ModelPage</name>
    <message>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <source>Import Weights File…</source>
        <translation>导入权重文件…</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Freeze BatchNorm statistics</source>
        <translation>冻结 BatchNorm 统计量</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Pretrained (model zoo)</source>
        <translation>预训练（模型库）</translation>
    </message>
    <message>
        <source>From a file</source>
        <translation>来自文件</translation>
    </message>
    <message>
        <source>From scratch (random initialisation)</source>
        <translation>从头训练（随机初始化）</translation>
    </message>
    <message>
        <source>torchvision&apos;s ImageNet weights, downloaded once into the cache and checked against their published SHA-256.</source>
        <translation>torchvision 的 ImageNet 权重，只需下载一次到缓存中，并根据其公布的 SHA-256 进行校验。</translation>
    </message>
    <message>
        <source>A safetensors file or a PyTorch state dict (.pth) with torchvision&apos;s parameter names, e.g. a checkpoint of an earlier run.</source>
        <translation>使用 torchvision 参数名的 safetensors 文件或 PyTorch state dict（.pth），例如之前某次运行的检查点。</translation>
    </message>
    <message>
        <source>No pretrained weights: needs much more data and training time.</source>
        <translation>不使用预训练权重：需要多得多的数据和训练时间。</translation>
    </message>
    <message>
        <source>The weights torchvision publishes for this backbone, with their ImageNet top-1.</source>
        <translation>torchvision 为此骨干网络发布的权重，及其 ImageNet Top-1 准确率。</translation>
    </message>
    <message>
        <source>Download the chosen weights into the cache (resumable, verified).</source>
        <translation>将所选权重下载到缓存中（支持断点续传，并会校验）。</translation>
    </message>
    <message>
        <source>Take a weights file downloaded elsewhere: it is verified against the catalog and copied into the cache.</source>
        <translation>使用在别处下载的权重文件：会根据目录进行校验并复制到缓存中。</translation>
    </message>
    <message>
        <source>Path to a .safetensors or .pth file</source>
        <translation>.safetensors 或 .pth 文件的路径</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>backbone default</source>
        <translation>骨干网络默认值</translation>
    </message>
    <message>
        <source>Dropout before the final layer; the lowest value keeps the backbone&apos;s own.</source>
        <translation>最后一层之前的 Dropout；最小值表示保留骨干网络自带的设置。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Units of an extra hidden layer (Linear, ReLU, Dropout) before the final layer; none keeps torchvision&apos;s head.</source>
        <translation>最后一层之前额外隐藏层（Linear、ReLU、Dropout）的单元数；“无”表示保留 torchvision 的分类头。</translation>
    </message>
    <message>
        <source>Head</source>
        <translation>分类头</translation>
    </message>
    <message>
        <source>Classes:</source>
        <translation>类别数：</translation>
    </message>
    <message>
        <source>Dropout:</source>
        <translation>Dropout：</translation>
    </message>
    <message>
        <source>Hidden layer:</source>
        <translation>隐藏层：</translation>
    </message>
    <message>
        <source>Train everything</source>
        <translation>训练全部层</translation>
    </message>
    <message>
        <source>Train the head only</source>
        <translation>仅训练分类头</translation>
    </message>
    <message>
        <source>Freeze up to a stage</source>
        <translation>冻结到指定阶段</translation>
    </message>
    <message>
        <source>Which layers learn. With few images per class, training the head only (or the last stages) is fast and avoids overfitting.</source>
        <translation>哪些层参与学习。每个类别的图像较少时，仅训练分类头（或最后几个阶段）速度快，且可避免过拟合。</translation>
    </message>
    <message>
        <source>How many stages, counted from the input, stay frozen.</source>
        <translation>从输入端起保持冻结的阶段数。</translation>
    </message>
    <message>
        <source>Keep the running mean and variance of every BatchNorm layer as the pretrained weights have them (BatchNorm layers in frozen stages always keep them).</source>
        <translation>保持每个 BatchNorm 层的运行均值和方差与预训练权重中的一致（冻结阶段中的 BatchNorm 层总是保持不变）。</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source> epochs</source>
        <translation> 轮</translation>
    </message>
    <message>
        <source>Gradual unfreezing: every this many epochs one more frozen stage, from the head down, starts training.</source>
        <translation>逐步解冻：每隔这么多轮次，从分类头往下再多一个冻结阶段开始训练。</translation>
    </message>
    <message>
        <source>Freezing</source>
        <translation>冻结</translation>
    </message>
    <message>
        <source>Policy:</source>
        <translation>策略：</translation>
    </message>
    <message>
        <source>Frozen stages:</source>
        <translation>冻结阶段数：</translation>
    </message>
    <message>
        <source>Unfreeze one stage every:</source>
        <translation>解冻一个阶段的间隔：</translation>
    </message>
    <message>
        <source>The model-zoo catalog cannot be read: %1</source>
        <translation>无法读取模型库目录：%1</translation>
    </message>
    <message>
        <source>%1 (top-1 %2 %)</source>
        <translation>%1（Top-1 %2 %）</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; — %2</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; — %2</translation>
    </message>
    <message>
        <source>%1 parameters, %2 GFLOPs at %3 × %3; evaluation resizes to %4 and crops %3 (%5).</source>
        <translation>%1 个参数，%3 × %3 下 %2 GFLOPs；评估时缩放到 %4 并裁剪为 %3（%5）。</translation>
    </message>
    <message>
        <source>Default weights: ImageNet top-1 %1 %, top-5 %2 %, licence %3.</source>
        <translation>默认权重：ImageNet Top-1 %1 %，Top-5 %2 %，许可证 %3。</translation>
    </message>
    <message>
        <source>A transformer: Grad-CAM is not available for it.</source>
        <translation>这是 Transformer 模型：不支持 Grad-CAM。</translation>
    </message>
    <message>
        <source>The model-zoo catalog is not loaded.</source>
        <translation>模型库目录未加载。</translation>
    </message>
    <message>
        <source>The catalog has no weights for this backbone.</source>
        <translation>目录中没有此骨干网络的权重。</translation>
    </message>
    <message>
        <source>In the cache: %1</source>
        <translation>已在缓存中：%1</translation>
    </message>
    <message>
        <source>Not downloaded yet (%1).</source>
        <translation>尚未下载（%1）。</translation>
    </message>
    <message>
        <source>%1 parameters, %2 of them train (%3 %).</source>
        <translation>%1 个参数，其中 %2 个参与训练（%3 %）。</translation>
    </message>
    <message>
        <source>Cannot build this model: %1</source>
        <translation>无法构建此模型：%1</translation>
    </message>
    <message>
        <source>from the dataset (none converted yet; 1000 are assumed for the counts)</source>
        <translation>取自数据集（尚未转换任何数据集；计数时假定为 1000 个）</translation>
    </message>
    <message numerus="yes">
        <source>%n class(es), from %1</source>
        <translation>
            <numerusform>%n 个类别，来自 %1</numerusform>
        </translation>
    </message>
    <message>
        <source>The chosen dataset cannot be read: %1</source>
        <translation>无法读取所选数据集：%1</translation>
    </message>
    <message>
        <source>Choose a Weights File</source>
        <translation>选择权重文件</translation>
    </message>
    <message>
        <source>Weights (*.safetensors *.pth *.pt);;All files (*)</source>
        <translation>权重 (*.safetensors *.pth *.pt);;所有文件 (*)</translation>
    </message>
    <message>
        <source>The download failed: %1</source>
        <translation>下载失败：%1</translation>
    </message>
    <message>
        <source>Download cancelled; it continues where it stopped when you download again.</source>
        <translation>下载已取消；再次下载时将从中断处继续。</translation>
    </message>
    <message>
        <source>Downloading %1… (progress in the Jobs panel)</source>
        <translation>正在下载 %1…（进度见任务面板）</translation>
    </message>
    <message>
        <source>Import a Weights File</source>
        <translation>导入权重文件</translation>
    </message>
    <message>
        <source>PyTorch weights (*.pth *.pt *.safetensors);;All files (*)</source>
        <translation>PyTorch 权重 (*.pth *.pt *.safetensors);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Imported and verified: %1 %2</source>
        <translation>已导入并校验：%1 %2</translation>
    </message>
    <message>
        <source>Not imported: %1</source>
        <translation>未导入：%1</translation>
    </message>
    <message>
        <source>Verifying %1…</source>
        <translation>正在校验 %1…</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Freezing&lt;/b&gt;&lt;/p&gt;&lt;p&gt;&lt;i&gt;Train everything&lt;/i&gt; fine-tunes every layer. &lt;i&gt;Train the head only&lt;/i&gt; keeps the pretrained backbone fixed and trains the classifier: fast, and best with few images. &lt;i&gt;Freeze up to a stage&lt;/i&gt; keeps the first stages fixed. Frozen BatchNorm keeps its running statistics; a stage can also be unfrozen every few epochs (gradual unfreezing). The table below lists what trains.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;冻结&lt;/b&gt;&lt;/p&gt;&lt;p&gt;&lt;i&gt;训练全部层&lt;/i&gt;会微调每一层。&lt;i&gt;仅训练分类头&lt;/i&gt;保持预训练的骨干网络不变，只训练分类器：速度快，图像很少时效果最好。&lt;i&gt;冻结到指定阶段&lt;/i&gt;保持前面几个阶段不变。冻结的 BatchNorm 保留其运行统计量；也可以每隔几个轮次解冻一个阶段（逐步解冻）。下表列出哪些部分参与训练。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Train from Scratch Instead</source>
        <translation>改为从头训练</translation>
    </message>
    <message>
        <source>Start from random weights: no download needed, but it needs more data and epochs.</source>
        <translation>从随机权重开始：无需下载，但需要更多数据和轮次。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::MultiLabelMetricsModel</name>
    <message>
        <source>micro avg</source>
        <translation>微平均</translation>
    </message>
    <message>
        <source>macro avg</source>
        <translation>宏平均</translation>
    </message>
    <message>
        <source>no positives</source>
        <translation>无正样本</translation>
    </message>
    <message>
        <source>The checkpoint&apos;s F1-tuned threshold. Double-click to change it.</source>
        <translation>检查点按 F1 调优的阈值。双击可修改。</translation>
    </message>
    <message>
        <source>Edited; the checkpoint&apos;s tuned threshold is %1.</source>
        <translation>已编辑；检查点调优的阈值为 %1。</translation>
    </message>
    <message>
        <source>Evaluate again to edit the thresholds: this evaluation was stored without its scores.</source>
        <translation>请重新评估以编辑阈值：此评估保存时没有保留分数。</translation>
    </message>
    <message>
        <source>Label</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>AP</source>
        <translation>AP</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精确率</translation>
    </message>
    <message>
        <source>Recall</source>
        <translation>召回率</translation>
    </message>
    <message>
        <source>F1</source>
        <translation>F1</translation>
    </message>
    <message>
        <source>Support</source>
        <translation>样本数</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>预测数</translation>
    </message>
    <message>
        <source>Threshold</source>
        <translation>阈值</translation>
    </message>
</context>
<context>
    <name>lathe::ui::MultiLabelPanel</name>
    <message>
        <source>Reset to Tuned</source>
        <translation>重置为调优值</translation>
    </message>
    <message>
        <source>Put back every label&apos;s threshold that the checkpoint was tuned with (the one that maximised its F1 on the validation split).</source>
        <translation>恢复检查点调优得到的每个标签的阈值（在验证划分上使其 F1 最大的阈值）。</translation>
    </message>
    <message>
        <source>Precision, recall and F1 at each label&apos;s threshold (a label is predicted when its score reaches it). Double-click a threshold to change it: the table, the averages and the false positives follow at once.</source>
        <translation>各标签在其阈值下的精确率、召回率和 F1（分数达到阈值即预测该标签）。双击阈值可修改：表格、平均值和误报会立即随之更新。</translation>
    </message>
    <message>
        <source>This evaluation was stored without its scores: evaluate again to edit the thresholds.</source>
        <translation>此评估保存时没有保留分数：请重新评估以编辑阈值。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::NearDuplicateGroupModel</name>
    <message numerus="yes">
        <source>%n image(s): %1</source>
        <translation>
            <numerusform>%n 张图像：%1</numerusform>
        </translation>
    </message>
    <message>
        <source>within %1 of %2 bits of the representative</source>
        <translation>与代表图像相差不超过 %1 位（共 %2 位）</translation>
    </message>
    <message numerus="yes">
        <source>%n image(s), within %1 of %2 bits: %3</source>
        <translation>
            <numerusform>%n 张图像，相差不超过 %1 位（共 %2 位）：%3</numerusform>
        </translation>
    </message>
    <message>
        <source>%1: the representative</source>
        <translation>%1：代表图像</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
</context>
<context>
    <name>lathe::ui::NewProjectDialog</name>
    <message>
        <source>New Project</source>
        <translation>新建项目</translation>
    </message>
    <message>
        <source>for example: flowers</source>
        <translation>例如：flowers</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Choose where to create the project</source>
        <translation>选择创建项目的位置</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Location:</source>
        <translation>位置：</translation>
    </message>
    <message>
        <source>Enter a name.</source>
        <translation>请输入名称。</translation>
    </message>
    <message>
        <source>The name cannot contain &apos;/&apos; or &apos;\&apos; or be &apos;.&apos; or &apos;..&apos;.</source>
        <translation>名称不能包含“/”或“\”，也不能是“.”或“..”。</translation>
    </message>
    <message>
        <source>The location must be an existing folder.</source>
        <translation>位置必须是已存在的文件夹。</translation>
    </message>
    <message>
        <source>%1 already exists and is not empty.</source>
        <translation>%1 已存在且不为空。</translation>
    </message>
    <message>
        <source>The project will be created in %1</source>
        <translation>项目将创建在 %1</translation>
    </message>
</context>
<context>
    <name>lathe::ui::PredictionGalleryModel</name>
    <message numerus="yes">
        <source>True %1, predicted %2: %n image(s), highest loss first.</source>
        <translation>
            <numerusform>真实 %1，预测 %2：%n 张图像，按损失从高到低排列。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>All %n image(s), highest loss first.</source>
        <translation>
            <numerusform>全部 %n 张图像，按损失从高到低排列。</numerusform>
        </translation>
    </message>
    <message>
        <source>Click a cell of the confusion matrix, or show the highest-loss images.</source>
        <translation>点击混淆矩阵的单元格，或显示损失最高的图像。</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>%1 → %2 (%3)</source>
        <translation>%1 → %2（%3）</translation>
    </message>
    <message>
        <source>%1
True: %2
Predicted: %3 (%4)
Loss: %5</source>
        <translation>%1
真实：%2
预测：%3（%4）
损失：%5</translation>
    </message>
    <message numerus="yes">
        <source>Carrying %1, falsely predicted %2: %n image(s), highest loss first.</source>
        <translation>
            <numerusform>带有 %1，误预测为 %2：%n 张图像，按损失从高到低排列。</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>(no label)</source>
        <translation>（无标签）</translation>
    </message>
    <message>
        <source>%1
Labels: %2
Highest scores: %3
Loss: %4</source>
        <translation>%1
标签：%2
最高分数：%3
损失：%4</translation>
    </message>
</context>
<context>
    <name>lathe::ui::PredictionGalleryPanel</name>
    <message>
        <source>Highest Loss</source>
        <translation>最高损失</translation>
    </message>
    <message>
        <source>Relabel…</source>
        <translation>重新标注…</translation>
    </message>
    <message>
        <source>Exclude</source>
        <translation>排除</translation>
    </message>
    <message>
        <source>Every evaluated image, the most confidently wrong first.</source>
        <translation>所有被评估的图像，置信度最高的错误预测排在最前。</translation>
    </message>
    <message>
        <source>Give the selected image another class in the catalog. The file is not touched; the change applies at the next conversion to shards.</source>
        <translation>在目录中为所选图像指定另一个类别。文件本身不会被改动；更改将在下次转换为分片时生效。</translation>
    </message>
    <message>
        <source>Leave the selected image out of the dataset. The file is not touched; the change applies at the next conversion to shards.</source>
        <translation>将所选图像排除在数据集之外。文件本身不会被改动；更改将在下次转换为分片时生效。</translation>
    </message>
    <message>
        <source>Relabel Image</source>
        <translation>重新标注图像</translation>
    </message>
    <message>
        <source>New class for %1:</source>
        <translation>%1 的新类别：</translation>
    </message>
    <message>
        <source>%1 is not in the catalog&apos;s dataset &quot;%2&quot; (was it removed by a re-import?)</source>
        <translation>%1 不在目录的数据集“%2”中（是否已在重新导入时被移除？）</translation>
    </message>
    <message>
        <source>No dataset of this project was imported from %1, the folder these shards were converted from: import it on the Data page to correct its images.</source>
        <translation>此项目中没有从 %1（这些分片的转换来源文件夹）导入的数据集：请在数据页导入该文件夹以更正其图像。</translation>
    </message>
    <message>
        <source>%1 is now excluded from dataset &quot;%2&quot;.</source>
        <translation>%1 现已从数据集“%2”中排除。</translation>
    </message>
    <message>
        <source>%1 is included in dataset &quot;%2&quot; again.</source>
        <translation>%1 已重新纳入数据集“%2”。</translation>
    </message>
    <message>
        <source>%1 is now labelled %2 in dataset &quot;%3&quot;.</source>
        <translation>%1 在数据集“%3”中的标签现为 %2。</translation>
    </message>
    <message>
        <source>The change applies at the next conversion to shards; this evaluation still shows the label the shards hold.</source>
        <translation>更改将在下次转换为分片时生效；本次评估仍显示分片中保存的标签。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::PreflightPanel</name>
    <message>
        <source>Pre-flight check</source>
        <translation>启动前检查</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Pre-flight check&lt;/b&gt;&lt;/p&gt;&lt;p&gt;Before a run starts, Lathe checks that the shards exist and have a training split, that the model&apos;s input channels suit them, that the chosen weights are on disk, and estimates the memory one rank needs: weights, gradients, optimiser state and activations (measured on a few real steps of the model, then scaled to the batch). It warns when that exceeds the chosen devices&apos; memory. A failed check keeps the run from starting and says why; the memory warning only warns.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;启动前检查&lt;/b&gt;&lt;/p&gt;&lt;p&gt;运行开始前，Lathe 会检查分片是否存在且包含训练集、模型的输入通道是否与之匹配、所选权重是否在磁盘上，并估算每个 rank 所需的内存：权重、梯度、优化器状态和激活值（在模型的几个真实训练步上测得，再按批大小换算）。超出所选设备的内存时会给出警告。检查未通过时运行不会开始，并说明原因；内存警告只是提醒。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Measured on the CPU with a forward and backward pass of the model at batch 2 and 4, scaled to the batch; parameters, gradients and optimiser state are counted. Not included: the CUDA context and cuDNN workspaces.</source>
        <translation>在 CPU 上以批大小 2 和 4 对模型执行前向和反向传播进行测量，再按批大小换算；计入参数、梯度和优化器状态。不包括：CUDA 上下文和 cuDNN 工作空间。</translation>
    </message>
    <message>
        <source>Ready to start on %1.</source>
        <translation>已就绪，可在 %1 上开始。</translation>
    </message>
    <message>
        <source>Not ready: %1</source>
        <translation>未就绪：%1</translation>
    </message>
    <message>
        <source>Memory: correct the settings first.</source>
        <translation>内存：请先更正设置。</translation>
    </message>
    <message>
        <source>Memory: choose a converted dataset to estimate it.</source>
        <translation>内存：请选择已转换的数据集以进行估算。</translation>
    </message>
    <message>
        <source>Estimating the memory…</source>
        <translation>正在估算内存…</translation>
    </message>
    <message>
        <source>Cannot estimate the memory: %1</source>
        <translation>无法估算内存：%1</translation>
    </message>
    <message>
        <source>Memory per rank: about %1 — weights %2, gradients %3, optimiser state %4, activations %5 (batch %6 at %7 px)</source>
        <translation>每个 rank 的内存：约 %1 — 权重 %2，梯度 %3，优化器状态 %4，激活值 %5（批大小 %6，%7 像素）</translation>
    </message>
    <message>
        <source>, image cache %1</source>
        <translation>，图像缓存 %1</translation>
    </message>
    <message>
        <source>; available: %1 per rank.</source>
        <translation>；可用：每个 rank %1。</translation>
    </message>
    <message>
        <source>fp16 measured as bf16 on the CPU (same width).</source>
        <translation>fp16 在 CPU 上按 bf16 测量（位宽相同）。</translation>
    </message>
    <message>
        <source>Add the CUDA context and cuDNN workspaces (often 0.5–1 GiB).</source>
        <translation>另需加上 CUDA 上下文和 cuDNN 工作空间（通常为 0.5–1 GiB）。</translation>
    </message>
    <message>
        <source>Warning: this is more than %1 has. Lower the batch size or the image size, train in bf16, or freeze more of the backbone on the Model page.</source>
        <translation>警告：这超出了 %1 的容量。请减小批大小或图像尺寸、使用 bf16 训练，或在模型页冻结更多骨干网络层。</translation>
    </message>
    <message numerus="yes">
        <source>about %n s</source>
        <translation>
            <numerusform>约 %n 秒</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>about %n min</source>
        <translation>
            <numerusform>约 %n 分钟</numerusform>
        </translation>
    </message>
    <message>
        <source>about %1 h</source>
        <translation>约 %1 小时</translation>
    </message>
    <message>
        <source>Next: Convert to Shards on the Data Page</source>
        <translation>下一步：在数据页转换为分片</translation>
    </message>
    <message>
        <source>Train from Scratch Instead</source>
        <translation>改为从头训练</translation>
    </message>
    <message>
        <source>Measured on this CPU: a few real training steps at batch 4 and 8 (optimizer included), scaled to the batch, the epoch&apos;s whole batches and the epochs, plus a forward pass over the validation split. The input pipeline runs beside the steps and is not counted.</source>
        <translation>在本机 CPU 上测量：以批大小 4 和 8 运行几个真实的训练步（包括优化器），再按批大小、每个轮次的完整批次数和轮次数换算，并加上在验证划分上的一次前向传播。输入流水线与训练步并行运行，不计入在内。</translation>
    </message>
    <message>
        <source>Use the Quick CPU Recipe</source>
        <translation>使用 CPU 快速方案</translation>
    </message>
    <message>
        <source>Time: choose a converted dataset to estimate it.</source>
        <translation>时间：请选择已转换的数据集以进行估算。</translation>
    </message>
    <message>
        <source>Time: measuring a few training steps…</source>
        <translation>时间：正在测量几个训练步…</translation>
    </message>
    <message>
        <source>Time: not estimated for these devices (the steps are measured on the CPU only).</source>
        <translation>时间：不对这些设备进行估算（训练步仅在 CPU 上测量）。</translation>
    </message>
    <message numerus="yes">
        <source>Time on this CPU: %1 — %n epoch(s) of %2 steps at %3 s each</source>
        <translation>
            <numerusform>在本机 CPU 上的时间：%1 — %n 个轮次，每轮 %2 步，每步 %3 秒</numerusform>
        </translation>
    </message>
    <message>
        <source> (an epoch uses %1 of the %2 training images).</source>
        <translation>（每个轮次使用 %2 张训练图像中的 %1 张）。</translation>
    </message>
    <message>
        <source>Warning: that is hours on this hardware. A smaller image size, a smaller backbone or fewer epochs finish sooner.</source>
        <translation>警告：在此硬件上需要数小时。使用更小的图像尺寸、更小的骨干网络或更少的轮次可以更快完成。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::PresetPanel</name>
    <message>
        <source>Preset</source>
        <translation>预设</translation>
    </message>
    <message>
        <source>Save as Preset…</source>
        <translation>另存为预设…</translation>
    </message>
    <message>
        <source>Delete Preset</source>
        <translation>删除预设</translation>
    </message>
    <message>
        <source>Put a preset&apos;s settings into the forms: the built-in recipes, or settings you saved.</source>
        <translation>将预设的设置填入表单：内置方案，或你保存的设置。</translation>
    </message>
    <message>
        <source>Save the current settings (everything but the dataset, the model and the devices) under a name, in %1.</source>
        <translation>将当前设置（数据集、模型和设备除外）以指定名称保存到 %1 中。</translation>
    </message>
    <message>
        <source>Delete the chosen saved preset.</source>
        <translation>删除所选的已保存预设。</translation>
    </message>
    <message>
        <source>Choose a preset…</source>
        <translation>选择预设…</translation>
    </message>
    <message>
        <source>%1 (built-in)</source>
        <translation>%1（内置）</translation>
    </message>
    <message>
        <source>Some saved presets cannot be read: %1</source>
        <translation>部分已保存的预设无法读取：%1</translation>
    </message>
    <message>
        <source>Saved in %1.</source>
        <translation>已保存到 %1。</translation>
    </message>
    <message>
        <source>Save as Preset</source>
        <translation>另存为预设</translation>
    </message>
    <message>
        <source>Name of the preset:</source>
        <translation>预设名称：</translation>
    </message>
    <message>
        <source>Delete the preset &quot;%1&quot;?</source>
        <translation>删除预设“%1”吗？</translation>
    </message>
    <message>
        <source>Reset to Defaults</source>
        <translation>恢复默认设置</translation>
    </message>
    <message>
        <source>Put every setting back to Lathe&apos;s defaults (the dataset and the model stay).</source>
        <translation>将所有设置恢复为 Lathe 的默认值（数据集和模型保持不变）。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::RejectedFilesModel</name>
    <message>
        <source>%1 bytes</source>
        <translation>%1 字节</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
</context>
<context>
    <name>lathe::ui::RunCheckpointPicker</name>
    <message>
        <source>%1 (unreadable)</source>
        <translation>%1（无法读取）</translation>
    </message>
    <message>
        <source>%1 (%2, %3)</source>
        <translation>%1（%2，%3）</translation>
    </message>
    <message>
        <source>Best</source>
        <translation>最佳</translation>
    </message>
    <message>
        <source>Last</source>
        <translation>最新</translation>
    </message>
    <message>
        <source>Step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <source>Refresh Runs</source>
        <translation>刷新运行列表</translation>
    </message>
    <message>
        <source>Best: the checkpoint with the best validation metric. Last: the newest checkpoint. Steps: the step checkpoints the run kept.</source>
        <translation>最佳：验证指标最好的检查点。最新：最新的检查点。第 N 步：运行按步数保存并保留的检查点。</translation>
    </message>
    <message>
        <source>Run:</source>
        <translation>运行：</translation>
    </message>
    <message>
        <source>Checkpoint:</source>
        <translation>检查点：</translation>
    </message>
    <message>
        <source>%1 is not a run of this project.</source>
        <translation>%1 不是此项目的运行。</translation>
    </message>
    <message>
        <source>Cannot list the runs: %1</source>
        <translation>无法列出运行：%1</translation>
    </message>
    <message>
        <source>No run chosen</source>
        <translation>未选择运行</translation>
    </message>
    <message>
        <source>The run selected on the Runs page, else the newest finished run. Once you pick a run here, it stays until you pick another.</source>
        <translation>运行记录页中选中的运行，若无则为最新完成的运行。一旦在此选择了运行，它会一直保持，直到你选择另一个。</translation>
    </message>
    <message>
        <source>No run is chosen: no run of this project has completed an epoch with a checkpoint yet (a run stopped before the end of its first epoch has nothing worth evaluating or exporting). Train one on the Train page, or pick a run above.</source>
        <translation>未选择运行：此项目中还没有运行完成一个轮次并写入检查点（在第一个轮次结束前停止的运行没有值得评估或导出的内容）。请在训练页训练一个，或在上方选择一个运行。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::RunConfigForm</name>
    <message>
        <source>comma-separated</source>
        <translation>以逗号分隔</translation>
    </message>
    <message>
        <source>Precision &amp; devices</source>
        <translation>精度与设备</translation>
    </message>
    <message>
        <source>Optimisation</source>
        <translation>优化</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Learning-rate schedule</source>
        <translation>学习率调度</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>Early stopping</source>
        <translation>早停</translation>
    </message>
    <message>
        <source>Weight averaging (EMA)</source>
        <translation>权重平均（EMA）</translation>
    </message>
    <message>
        <source>Feature cache</source>
        <translation>特征缓存</translation>
    </message>
    <message>
        <source>Several machines</source>
        <translation>多机训练</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Precision:</source>
        <translation>精度：</translation>
    </message>
    <message>
        <source>Devices:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation>随机种子：</translation>
    </message>
    <message>
        <source>Pipeline threads:</source>
        <translation>流水线线程数：</translation>
    </message>
    <message>
        <source>Image cache (MB):</source>
        <translation>图像缓存（MB）：</translation>
    </message>
    <message>
        <source>Channels-last memory:</source>
        <translation>Channels-last 内存布局：</translation>
    </message>
    <message>
        <source>Class balance:</source>
        <translation>类别平衡：</translation>
    </message>
    <message>
        <source>Training split:</source>
        <translation>训练划分：</translation>
    </message>
    <message>
        <source>Validation split:</source>
        <translation>验证划分：</translation>
    </message>
    <message>
        <source>Optimiser:</source>
        <translation>优化器：</translation>
    </message>
    <message>
        <source>Learning rate:</source>
        <translation>学习率：</translation>
    </message>
    <message>
        <source>Batch size:</source>
        <translation>批大小：</translation>
    </message>
    <message>
        <source>Epochs:</source>
        <translation>轮次：</translation>
    </message>
    <message>
        <source>Momentum:</source>
        <translation>动量：</translation>
    </message>
    <message>
        <source>Nesterov:</source>
        <translation>Nesterov：</translation>
    </message>
    <message>
        <source>Weight decay:</source>
        <translation>权重衰减：</translation>
    </message>
    <message>
        <source>No decay for norms and biases:</source>
        <translation>归一化层和偏置不衰减：</translation>
    </message>
    <message>
        <source>Betas (AdamW):</source>
        <translation>Betas（AdamW）：</translation>
    </message>
    <message>
        <source>Epsilon:</source>
        <translation>Epsilon：</translation>
    </message>
    <message>
        <source>Alpha (RMSprop):</source>
        <translation>Alpha（RMSprop）：</translation>
    </message>
    <message>
        <source>Clip gradient norm:</source>
        <translation>梯度范数裁剪：</translation>
    </message>
    <message>
        <source>Accumulate batches:</source>
        <translation>梯度累积批次数：</translation>
    </message>
    <message>
        <source>Loss:</source>
        <translation>损失：</translation>
    </message>
    <message>
        <source>Label smoothing:</source>
        <translation>标签平滑：</translation>
    </message>
    <message>
        <source>Focal gamma:</source>
        <translation>Focal gamma：</translation>
    </message>
    <message>
        <source>Schedule:</source>
        <translation>调度：</translation>
    </message>
    <message>
        <source>Warm-up epochs:</source>
        <translation>预热轮次：</translation>
    </message>
    <message>
        <source>Warm-up start factor:</source>
        <translation>预热起始系数：</translation>
    </message>
    <message>
        <source>Step size (epochs):</source>
        <translation>步长（轮次）：</translation>
    </message>
    <message>
        <source>Milestones (epochs):</source>
        <translation>里程碑（轮次）：</translation>
    </message>
    <message>
        <source>Gamma:</source>
        <translation>Gamma：</translation>
    </message>
    <message>
        <source>Minimum learning rate:</source>
        <translation>最小学习率：</translation>
    </message>
    <message>
        <source>Restart period (epochs):</source>
        <translation>重启周期（轮次）：</translation>
    </message>
    <message>
        <source>Period multiplier:</source>
        <translation>周期倍数：</translation>
    </message>
    <message>
        <source>Rising share (one-cycle):</source>
        <translation>上升阶段占比（one-cycle）：</translation>
    </message>
    <message>
        <source>Initial divisor:</source>
        <translation>初始除数：</translation>
    </message>
    <message>
        <source>Final divisor:</source>
        <translation>最终除数：</translation>
    </message>
    <message>
        <source>Plateau metric:</source>
        <translation>Plateau 指标：</translation>
    </message>
    <message>
        <source>Plateau factor:</source>
        <translation>Plateau 系数：</translation>
    </message>
    <message>
        <source>Plateau patience:</source>
        <translation>Plateau 耐心值：</translation>
    </message>
    <message>
        <source>Plateau threshold:</source>
        <translation>Plateau 阈值：</translation>
    </message>
    <message>
        <source>Every steps:</source>
        <translation>每隔步数：</translation>
    </message>
    <message>
        <source>Every epochs:</source>
        <translation>每隔轮次：</translation>
    </message>
    <message>
        <source>Keep last:</source>
        <translation>保留最近：</translation>
    </message>
    <message>
        <source>Best by:</source>
        <translation>最佳判定指标：</translation>
    </message>
    <message>
        <source>Stop early:</source>
        <translation>启用早停：</translation>
    </message>
    <message>
        <source>Metric:</source>
        <translation>指标：</translation>
    </message>
    <message>
        <source>Patience (epochs):</source>
        <translation>耐心值（轮次）：</translation>
    </message>
    <message>
        <source>Minimum change:</source>
        <translation>最小变化量：</translation>
    </message>
    <message>
        <source>Average weights:</source>
        <translation>权重平均：</translation>
    </message>
    <message>
        <source>Decay:</source>
        <translation>衰减：</translation>
    </message>
    <message>
        <source>Mode:</source>
        <translation>模式：</translation>
    </message>
    <message>
        <source>Augmented views:</source>
        <translation>增强视图数：</translation>
    </message>
    <message>
        <source>Machines:</source>
        <translation>机器数：</translation>
    </message>
    <message>
        <source>This machine&apos;s rank:</source>
        <translation>本机序号（rank）：</translation>
    </message>
    <message>
        <source>Master (host:port):</source>
        <translation>主节点（host:port）：</translation>
    </message>
    <message>
        <source>Synchronise BatchNorm:</source>
        <translation>同步 BatchNorm：</translation>
    </message>
    <message>
        <source>Timeout (seconds):</source>
        <translation>超时（秒）：</translation>
    </message>
    <message>
        <source>Advanced settings</source>
        <translation>高级设置</translation>
    </message>
    <message>
        <source>Optimiser details, warm-up, loss, early stopping, weight averaging, checkpoints, data loading and the seed.</source>
        <translation>优化器细节、预热、损失、早停、权重平均、检查点、数据加载和随机种子。</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Reproducibility</source>
        <translation>可复现性</translation>
    </message>
    <message>
        <source>Learning-rate warm-up</source>
        <translation>学习率预热</translation>
    </message>
    <message>
        <source>SGD</source>
        <translation>SGD</translation>
    </message>
    <message>
        <source>AdamW</source>
        <translation>AdamW</translation>
    </message>
    <message>
        <source>RMSprop</source>
        <translation>RMSprop</translation>
    </message>
    <message>
        <source>Cross-entropy</source>
        <translation>交叉熵</translation>
    </message>
    <message>
        <source>Focal</source>
        <translation>Focal</translation>
    </message>
    <message>
        <source>Constant</source>
        <translation>恒定</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>阶梯</translation>
    </message>
    <message>
        <source>Multi-step</source>
        <translation>多阶梯</translation>
    </message>
    <message>
        <source>Exponential</source>
        <translation>指数</translation>
    </message>
    <message>
        <source>Cosine</source>
        <translation>余弦</translation>
    </message>
    <message>
        <source>Cosine with restarts</source>
        <translation>带重启的余弦</translation>
    </message>
    <message>
        <source>One-cycle</source>
        <translation>One-cycle</translation>
    </message>
    <message>
        <source>Reduce on plateau</source>
        <translation>平台期降低</translation>
    </message>
    <message>
        <source>Validation loss</source>
        <translation>验证损失</translation>
    </message>
    <message>
        <source>Validation top-1</source>
        <translation>验证 Top-1</translation>
    </message>
    <message>
        <source>Training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <source>FP32</source>
        <translation>FP32</translation>
    </message>
    <message>
        <source>BF16 (mixed)</source>
        <translation>BF16（混合精度）</translation>
    </message>
    <message>
        <source>FP16 (mixed)</source>
        <translation>FP16（混合精度）</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Class weights</source>
        <translation>类别权重</translation>
    </message>
    <message>
        <source>Off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Fixed views</source>
        <translation>固定视图</translation>
    </message>
    <message>
        <source>Peak learning rate:</source>
        <translation>峰值学习率：</translation>
    </message>
    <message>
        <source>Validation mAP (multi-label)</source>
        <translation>验证 mAP（多标签）</translation>
    </message>
    <message>
        <source>Balanced sampler</source>
        <translation>均衡采样</translation>
    </message>
    <message>
        <source>Square-root sampler</source>
        <translation>平方根采样</translation>
    </message>
    <message>
        <source>Cross-validation folds:</source>
        <translation>交叉验证折数：</translation>
    </message>
    <message>
        <source>Held-out fold:</source>
        <translation>留出折：</translation>
    </message>
    <message>
        <source>NVIDIA GPUs</source>
        <translation>NVIDIA GPU</translation>
    </message>
    <message>
        <source>On</source>
        <translation>开启</translation>
    </message>
    <message>
        <source>Normalise on the device:</source>
        <translation>在设备上归一化：</translation>
    </message>
    <message>
        <source>CUDA graphs:</source>
        <translation>CUDA 图：</translation>
    </message>
    <message>
        <source>Read losses every (steps):</source>
        <translation>读取损失的间隔（步）：</translation>
    </message>
</context>
<context>
    <name>lathe::ui::RunOverlayPlot</name>
    <message>
        <source>Validation top-1</source>
        <translation>验证 Top-1</translation>
    </message>
    <message>
        <source>Validation loss</source>
        <translation>验证损失</translation>
    </message>
    <message>
        <source>Training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <source>Training top-1</source>
        <translation>训练 Top-1</translation>
    </message>
    <message>
        <source>Epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Metric:</source>
        <translation>指标：</translation>
    </message>
    <message>
        <source>Validation mAP</source>
        <translation>验证 mAP</translation>
    </message>
</context>
<context>
    <name>lathe::ui::RunTableModel</name>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Backbone</source>
        <translation>骨干网络</translation>
    </message>
    <message>
        <source>Best</source>
        <translation>最佳</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>%1
annotations.json: %2</source>
        <translation>%1
annotations.json：%2</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Val top-1</source>
        <translation>验证 Top-1</translation>
    </message>
    <message>
        <source>Val top-5</source>
        <translation>验证 Top-5</translation>
    </message>
    <message>
        <source>Val loss</source>
        <translation>验证损失</translation>
    </message>
    <message>
        <source>Train top-1</source>
        <translation>训练 Top-1</translation>
    </message>
    <message>
        <source>Train loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Epoch time</source>
        <translation>每轮用时</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>Val mAP</source>
        <translation>验证 mAP</translation>
    </message>
    <message>
        <source>Val mAP (micro)</source>
        <translation>验证 mAP（微平均）</translation>
    </message>
    <message>
        <source>Val F1 (micro)</source>
        <translation>验证 F1（微平均）</translation>
    </message>
    <message>
        <source>mAP n/a</source>
        <translation>mAP 不适用</translation>
    </message>
    <message>
        <source>mAP %1</source>
        <translation>mAP %1</translation>
    </message>
    <message>
        <source>top-1 %1 %</source>
        <translation>top-1 %1 %</translation>
    </message>
    <message>
        <source>Not evaluated yet: evaluate a checkpoint on the Evaluate page.</source>
        <translation>尚未评估：请在评估页评估一个检查点。</translation>
    </message>
    <message>
        <source>mAP (mean average precision over labels, macro): none of the labels has a positive image</source>
        <translation>mAP（各标签平均精度的宏平均）：没有任何标签有正例图像</translation>
    </message>
    <message>
        <source>mAP (mean average precision over labels, macro) %1</source>
        <translation>mAP（各标签平均精度的宏平均）%1</translation>
    </message>
    <message>
        <source>Top-1 accuracy %1 %</source>
        <translation>Top-1 准确率 %1 %</translation>
    </message>
    <message numerus="yes">
        <source>%1
Checkpoint %2 on the %3 split (%n image(s)%4), evaluated %5.</source>
        <translation>
            <numerusform>%1
检查点 %2，%3 划分（%n 张图像%4），评估于 %5。</numerusform>
        </translation>
    </message>
    <message>
        <source>, test-time augmentation</source>
        <translation>，测试时增强</translation>
    </message>
    <message>
        <source>The run&apos;s newest stored evaluation (Evaluate page): top-1 accuracy for a single-label run, mAP (mean average precision over labels, macro) for a multi-label run. Its tool tip names the checkpoint and split.</source>
        <translation>该运行最新保存的评估（评估页）：单标签运行为 top-1 准确率，多标签运行为 mAP（各标签平均精度的宏平均）。其提示信息注明检查点和数据划分。</translation>
    </message>
    <message>
        <source>The best value of the metric that picks the run&apos;s best checkpoint (checkpoints.best_metric).</source>
        <translation>用于选出该运行最佳检查点的指标（checkpoints.best_metric）的最佳值。</translation>
    </message>
    <message>
        <source>Eval top-1 / mAP</source>
        <translation>评估 top-1 / mAP</translation>
    </message>
</context>
<context>
    <name>lathe::ui::RunsPage</name>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Open Folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续训练</translation>
    </message>
    <message>
        <source>Clone Config</source>
        <translation>克隆配置</translation>
    </message>
    <message>
        <source>Move to Trash</source>
        <translation>移到回收站</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行记录</translation>
    </message>
    <message>
        <source>Continue a stopped or interrupted run from its last checkpoint, on the Train page.</source>
        <translation>在训练页从最新检查点继续已停止或已中断的运行。</translation>
    </message>
    <message>
        <source>Put this run&apos;s settings into the Train page&apos;s forms for a new run.</source>
        <translation>将此运行的设置填入训练页的表单，用于新的运行。</translation>
    </message>
    <message>
        <source>Move the run folder to the trash (after asking).</source>
        <translation>将运行文件夹移到回收站（会先询问）。</translation>
    </message>
    <message>
        <source>Select two runs to see where their configurations differ.</source>
        <translation>选择两个运行以查看其配置的差异。</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Curves</source>
        <translation>曲线</translation>
    </message>
    <message>
        <source>Config Diff</source>
        <translation>配置差异</translation>
    </message>
    <message>
        <source>Checkpoints</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>Open a project to see its runs.</source>
        <translation>请打开一个项目以查看其运行。</translation>
    </message>
    <message>
        <source>No runs yet: start one on the Train page, or with lathe-cli train --out %1/NAME.</source>
        <translation>尚无运行：请在训练页启动一个，或使用 lathe-cli train --out %1/NAME。</translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) in %1.</source>
        <translation>
            <numerusform>%1 中有 %n 个运行。</numerusform>
        </translation>
    </message>
    <message>
        <source>Cannot read the selected runs: %1</source>
        <translation>无法读取所选运行：%1</translation>
    </message>
    <message>
        <source>(absent)</source>
        <translation>（缺失）</translation>
    </message>
    <message>
        <source>The two configurations are the same.</source>
        <translation>两个配置相同。</translation>
    </message>
    <message>
        <source>Move Run to Trash</source>
        <translation>将运行移到回收站</translation>
    </message>
    <message>
        <source>Move the run folder %1 to the trash?</source>
        <translation>将运行文件夹 %1 移到回收站吗？</translation>
    </message>
    <message>
        <source>%1 could not be moved to the trash.</source>
        <translation>无法将 %1 移到回收站。</translation>
    </message>
    <message>
        <source>Save Notes</source>
        <translation>保存备注</translation>
    </message>
    <message>
        <source>Mark as Best</source>
        <translation>标记为最佳</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Evaluate</source>
        <translation>评估</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Double-click a run&apos;s name or tags to change them.</source>
        <translation>双击运行的名称或标签即可修改。</translation>
    </message>
    <message>
        <source>Show only the runs with this tag.</source>
        <translation>仅显示带有此标签的运行。</translation>
    </message>
    <message>
        <source>Notes about the selected run: what you tried, what you saw. Saved in its run folder.</source>
        <translation>关于所选运行的备注：你尝试了什么、观察到了什么。保存在其运行文件夹中。</translation>
    </message>
    <message>
        <source>Make this checkpoint the run&apos;s best: evaluating or exporting &quot;best&quot; then uses it. A resumed run replaces it only with a checkpoint that beats its value.</source>
        <translation>将此检查点设为该运行的最佳检查点：之后评估或导出“最佳”时将使用它。继续训练的运行只会用指标优于它的检查点来替换它。</translation>
    </message>
    <message>
        <source>Delete this step checkpoint&apos;s files (after asking). The best and last checkpoints keep their own copies.</source>
        <translation>删除此按步检查点的文件（会先询问）。最佳和最新检查点各自保留副本。</translation>
    </message>
    <message>
        <source>Evaluate this checkpoint on the Evaluate page.</source>
        <translation>在评估页评估此检查点。</translation>
    </message>
    <message>
        <source>Export this checkpoint (ONNX, TorchScript, safetensors).</source>
        <translation>导出此检查点（ONNX、TorchScript、safetensors）。</translation>
    </message>
    <message>
        <source>Checkpoint</source>
        <translation>检查点</translation>
    </message>
    <message>
        <source>Kept as</source>
        <translation>保留为</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>All tags</source>
        <translation>全部标签</translation>
    </message>
    <message>
        <source>Cannot save the name, tags or notes: %1</source>
        <translation>无法保存名称、标签或备注：%1</translation>
    </message>
    <message>
        <source>The run is training: it keeps its best checkpoint itself until it ends.</source>
        <translation>该运行正在训练：在结束之前由它自行维护最佳检查点。</translation>
    </message>
    <message>
        <source>Delete checkpoint %1 of %2? Its files are deleted, not moved to the trash.</source>
        <translation>删除 %2 的检查点 %1 吗？其文件将被直接删除，而不是移到回收站。</translation>
    </message>
    <message>
        <source>It is also the run&apos;s %1 checkpoint: that copy stays.</source>
        <translation>它同时也是该运行的“%1”检查点：那份副本会保留。</translation>
    </message>
    <message>
        <source>Delete Checkpoint</source>
        <translation>删除检查点</translation>
    </message>
    <message>
        <source>best (chosen)</source>
        <translation>最佳（手动指定）</translation>
    </message>
    <message>
        <source>best</source>
        <translation>最佳</translation>
    </message>
    <message>
        <source>last</source>
        <translation>最新</translation>
    </message>
    <message>
        <source>incomplete</source>
        <translation>不完整</translation>
    </message>
    <message>
        <source>Cannot list the runs: %1</source>
        <translation>无法列出运行：%1</translation>
    </message>
    <message>
        <source>Filter by name, backbone, dataset, state, tag or notes</source>
        <translation>按名称、骨干网络、数据集、状态、标签或备注筛选</translation>
    </message>
    <message>
        <source>The epochs completed when the checkpoint was written; its metrics are those of the last one. A checkpoint written within an epoch (Stop, every N steps) counts the epochs before it.</source>
        <translation>写入检查点时已完成的轮次数；其指标为最后一个已完成轮次的指标。在轮次中途写入的检查点（停止时、每 N 步）只计入此前已完成的轮次。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::SearchSpaceEditor</name>
    <message>
        <source>Vary</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>Field</source>
        <translation>字段</translation>
    </message>
    <message>
        <source>Searched as</source>
        <translation>搜索方式</translation>
    </message>
    <message>
        <source>From / values</source>
        <translation>起点 / 取值</translation>
    </message>
    <message>
        <source>To</source>
        <translation>终点</translation>
    </message>
    <message>
        <source>Vary this field in the study; unticked, every trial keeps the Train page&apos;s value.</source>
        <translation>在研究中变化此字段；不勾选时，每个试验保留训练页的值。</translation>
    </message>
    <message>
        <source>Log-uniform</source>
        <translation>对数均匀</translation>
    </message>
    <message>
        <source>Uniform</source>
        <translation>均匀</translation>
    </message>
    <message>
        <source>Integer</source>
        <translation>整数</translation>
    </message>
    <message>
        <source>Integer, log scale</source>
        <translation>整数，对数刻度</translation>
    </message>
    <message>
        <source>Choice</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>Grid</source>
        <translation>网格</translation>
    </message>
    <message>
        <source>Values separated by commas.</source>
        <translation>用逗号分隔的取值。</translation>
    </message>
    <message>
        <source>Values separated by commas, out of: %1</source>
        <translation>用逗号分隔的取值，可选：%1</translation>
    </message>
    <message>
        <source>Image size</source>
        <translation>图像尺寸</translation>
    </message>
    <message>
        <source>Head dropout</source>
        <translation>分类头 Dropout</translation>
    </message>
    <message>
        <source>Frozen stages</source>
        <translation>冻结阶段数</translation>
    </message>
    <message>
        <source>Weight averaging decay</source>
        <translation>权重平均衰减</translation>
    </message>
</context>
<context>
    <name>lathe::ui::ShardCountsModel</name>
    <message>
        <source>Total</source>
        <translation>合计</translation>
    </message>
    <message>
        <source>Class</source>
        <translation>类别</translation>
    </message>
</context>
<context>
    <name>lathe::ui::ShardTableModel</name>
    <message>
        <source>%1
Index: %2</source>
        <translation>%1
索引：%2</translation>
    </message>
    <message>
        <source>%1 bytes</source>
        <translation>%1 字节</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Split</source>
        <translation>划分</translation>
    </message>
    <message>
        <source>Records</source>
        <translation>记录数</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>SHA-256</source>
        <translation>SHA-256</translation>
    </message>
</context>
<context>
    <name>lathe::ui::StageTableModel</name>
    <message>
        <source>frozen</source>
        <translation>已冻结</translation>
    </message>
    <message>
        <source>trains</source>
        <translation>全部训练</translation>
    </message>
    <message>
        <source>Double-click to set this stage&apos;s learning rate as a multiple of the run&apos;s.</source>
        <translation>双击可将此阶段的学习率设为运行学习率的倍数。</translation>
    </message>
    <message>
        <source>Stage</source>
        <translation>阶段</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>Trains</source>
        <translation>可训练参数</translation>
    </message>
    <message>
        <source>LR multiplier</source>
        <translation>学习率倍数</translation>
    </message>
</context>
<context>
    <name>lathe::ui::StudyCharts</name>
    <message>
        <source>%1 (%)</source>
        <translation>%1（%）</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>Trial</source>
        <translation>试验</translation>
    </message>
    <message>
        <source>Epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Share of the explained variance (%)</source>
        <translation>解释方差的占比（%）</translation>
    </message>
    <message>
        <source>Best so far</source>
        <translation>目前最佳</translation>
    </message>
    <message>
        <source>Learning curves</source>
        <translation>学习曲线</translation>
    </message>
    <message>
        <source>Parallel coordinates</source>
        <translation>平行坐标</translation>
    </message>
    <message>
        <source>Importance</source>
        <translation>重要性</translation>
    </message>
    <message>
        <source>The metric of each finished trial and the best value so far.</source>
        <translation>每个已结束试验的指标及目前的最佳值。</translation>
    </message>
    <message>
        <source>Each trial&apos;s metric after every epoch.</source>
        <translation>每个试验在每一轮之后的指标。</translation>
    </message>
    <message>
        <source>Each finished trial&apos;s parameters and metric, one line per trial.</source>
        <translation>每个已结束试验的参数和指标，每个试验一条线。</translation>
    </message>
    <message>
        <source>How much of the metric&apos;s variation each parameter explains on its own.</source>
        <translation>每个参数单独能解释多少指标的变化。</translation>
    </message>
    <message>
        <source>Validation top-1</source>
        <translation>验证 top-1</translation>
    </message>
    <message>
        <source>Validation loss</source>
        <translation>验证损失</translation>
    </message>
    <message>
        <source>Training loss</source>
        <translation>训练损失</translation>
    </message>
    <message>
        <source>Training top-1</source>
        <translation>训练 top-1</translation>
    </message>
    <message>
        <source>Completed</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>Pruned</source>
        <translation>已剪枝</translation>
    </message>
    <message>
        <source>The metric of each finished trial will appear here.</source>
        <translation>每个已结束试验的指标将显示在这里。</translation>
    </message>
    <message>
        <source>Trial %1</source>
        <translation>试验 %1</translation>
    </message>
    <message>
        <source>Best: trial %1</source>
        <translation>最佳：试验 %1</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Each trial&apos;s metric after every epoch will appear here.</source>
        <translation>每个试验在每一轮之后的指标将显示在这里。</translation>
    </message>
    <message>
        <source>One line per finished trial, through its parameters and metric, will appear here.</source>
        <translation>每个已结束试验将以一条穿过其参数和指标的线显示在这里。</translation>
    </message>
    <message numerus="yes">
        <source>Needs %n completed trial(s) to estimate how much each parameter matters (%1 so far).</source>
        <translation>
            <numerusform>需要 %n 个已完成的试验才能估计每个参数的重要性（目前 %1 个）。</numerusform>
        </translation>
    </message>
    <message>
        <source>The search space has no parameters.</source>
        <translation>搜索空间没有参数。</translation>
    </message>
    <message numerus="yes">
        <source>All %n completed trial(s) reached the same metric: no parameter explains any difference yet.</source>
        <translation>
            <numerusform>全部 %n 个已完成试验的指标相同：还没有参数能解释差异。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The share of the metric&apos;s variance each parameter explains on its own, over %n completed trial(s): a main-effect variance decomposition (η²), a simplification of fANOVA&apos;s first-order terms, not fANOVA itself. Effects that only appear when parameters act together are not counted, and with few trials even an irrelevant parameter explains a little.</source>
        <translation>
            <numerusform>基于 %n 个已完成试验，每个参数单独解释的指标方差占比：主效应方差分解（η²），是 fANOVA 一阶项的简化，而非 fANOVA 本身。只在参数共同作用时出现的效应不计入；试验很少时，即使无关的参数也会解释一点。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>How much each parameter matters will appear here after %n completed trial(s).</source>
        <translation>
            <numerusform>有 %n 个已完成试验后，这里将显示每个参数的重要性。</numerusform>
        </translation>
    </message>
    <message>
        <source>Trial %1 (%2)</source>
        <translation>试验 %1（%2）</translation>
    </message>
    <message>
        <source>%1 after epoch %2: %3</source>
        <translation>%1，第 %2 轮后：%3</translation>
    </message>
    <message>
        <source>%1: %2 (epoch %3, when pruned)</source>
        <translation>%1：%2（第 %3 轮，剪枝时）</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1 = %2</source>
        <translation>%1 = %2</translation>
    </message>
</context>
<context>
    <name>lathe::ui::ThumbnailDelegate</name>
    <message>
        <source>Cannot decode</source>
        <translation>无法解码</translation>
    </message>
    <message>
        <source>Duplicate</source>
        <translation>重复</translation>
    </message>
    <message>
        <source>Excluded</source>
        <translation>已排除</translation>
    </message>
</context>
<context>
    <name>lathe::ui::ThumbnailLoader</name>
    <message>
        <source>too large to preview (%1 × %2 pixels)</source>
        <translation>过大，无法预览（%1 × %2 像素）</translation>
    </message>
    <message>
        <source>Thumbnails are shown but not kept: %1</source>
        <translation>缩略图照常显示，但未保存到缓存：%1</translation>
    </message>
</context>
<context>
    <name>lathe::ui::TrainPage</name>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Check the settings, then train the model chosen on the Model page in a new run folder.</source>
        <translation>检查设置，然后在新的运行文件夹中训练在模型页选择的模型。</translation>
    </message>
    <message>
        <source>Pause between two optimizer steps; press again to continue.</source>
        <translation>在两个优化器步之间暂停；再次点击以继续。</translation>
    </message>
    <message>
        <source>Stop after the current step. A checkpoint is written first, so the run can be resumed from the Runs page.</source>
        <translation>在当前步完成后停止。会先写入检查点，因此可以在运行记录页恢复该运行。</translation>
    </message>
    <message>
        <source>A dataset converted to shards on the Data page.</source>
        <translation>在数据页转换为分片的数据集。</translation>
    </message>
    <message>
        <source>backbone default</source>
        <translation>骨干网络默认值</translation>
    </message>
    <message>
        <source> px</source>
        <translation> 像素</translation>
    </message>
    <message>
        <source>Side of the square images the model is trained on; the lowest value uses the backbone&apos;s default (224 for most).</source>
        <translation>模型训练所用正方形图像的边长；最小值表示使用骨干网络的默认值（大多数为 224）。</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Shards:</source>
        <translation>分片：</translation>
    </message>
    <message>
        <source>Image size:</source>
        <translation>图像尺寸：</translation>
    </message>
    <message>
        <source>Augmentation</source>
        <translation>数据增强</translation>
    </message>
    <message>
        <source>Learning rate over the run</source>
        <translation>整个运行中的学习率</translation>
    </message>
    <message>
        <source>Setup</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Live</source>
        <translation>实时</translation>
    </message>
    <message>
        <source>Stopping after the current step…</source>
        <translation>将在当前步完成后停止…</translation>
    </message>
    <message>
        <source>Open a project first.</source>
        <translation>请先打开一个项目。</translation>
    </message>
    <message>
        <source>A run is already going on.</source>
        <translation>已有运行正在进行。</translation>
    </message>
    <message>
        <source>%1 holds no dataset.json: convert the dataset again.</source>
        <translation>%1 中没有 dataset.json：请重新转换数据集。</translation>
    </message>
    <message>
        <source>The weights file %1 is not there: download it on the Model page, or choose another source.</source>
        <translation>权重文件 %1 不存在：请在模型页下载，或选择其他来源。</translation>
    </message>
    <message>
        <source>Cannot start: %1</source>
        <translation>无法开始：%1</translation>
    </message>
    <message>
        <source>Resuming %1…</source>
        <translation>正在恢复 %1…</translation>
    </message>
    <message>
        <source>Starting %1…</source>
        <translation>正在启动 %1…</translation>
    </message>
    <message>
        <source>Finished: %1</source>
        <translation>已完成：%1</translation>
    </message>
    <message>
        <source>Stopped; a checkpoint was written, resume it from the Runs page: %1</source>
        <translation>已停止；已写入检查点，可在运行记录页恢复：%1</translation>
    </message>
    <message>
        <source>The run failed: %1</source>
        <translation>运行失败：%1</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>The preset was not saved: %1</source>
        <translation>预设未保存：%1</translation>
    </message>
    <message>
        <source>It expects pretrained weights, but the Model page trains from scratch: choose model-zoo weights or a weights file there.</source>
        <translation>此预设需要预训练权重，但模型页设置为从头训练：请在模型页选择模型库权重或权重文件。</translation>
    </message>
    <message>
        <source>It starts from random weights, but the Model page has pretrained weights chosen: choose &quot;From scratch&quot; there, or the run fine-tunes them.</source>
        <translation>此预设从随机权重开始，但模型页已选择预训练权重：请在模型页选择“从头训练”，否则本次运行将对这些权重进行微调。</translation>
    </message>
    <message>
        <source>Preset &quot;%1&quot; applied.</source>
        <translation>已应用预设“%1”。</translation>
    </message>
    <message>
        <source>There is no preset &quot;%1&quot;.</source>
        <translation>没有预设“%1”。</translation>
    </message>
    <message>
        <source>devices: %1 not on this machine; choose the devices to train on.</source>
        <translation>设备：%1 不在本机上；请选择用于训练的设备。</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Augmentation&lt;/b&gt;&lt;/p&gt;&lt;p&gt;The steps applied to every training image, in order, each with the chance p that it is applied. Their parameters mean what torchvision&apos;s transforms of the same name mean (random_resized_crop&apos;s scale and ratio, color_jitter&apos;s brightness, …). Evaluation never augments: it resizes and crops the centre. Mixup and CutMix act on whole batches and are not shown in the preview.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;数据增强&lt;/b&gt;&lt;/p&gt;&lt;p&gt;按顺序作用于每张训练图像的步骤，每一步以概率 p 应用。参数含义与 torchvision 同名变换相同（random_resized_crop 的 scale 和 ratio、color_jitter 的 brightness 等）。评估时从不增强：只缩放并中心裁剪。Mixup 和 CutMix 作用于整个批次，预览中不显示。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Preview&lt;/b&gt;&lt;/p&gt;&lt;p&gt;The same eight training images through the current steps, as the model will see them. Re-roll draws new random parameters.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;预览&lt;/b&gt;&lt;/p&gt;&lt;p&gt;同样八张训练图像经过当前步骤后的样子，即模型将看到的图像。“重新随机”会抽取新的随机参数。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Every setting is back to its default.</source>
        <translation>所有设置已恢复为默认值。</translation>
    </message>
    <message>
        <source>there are no shards to train on yet: convert a dataset to shards on the Data page first.</source>
        <translation>还没有可用于训练的分片：请先在数据页将数据集转换为分片。</translation>
    </message>
    <message>
        <source>Learning rate set to %1 from the finder.</source>
        <translation>已根据查找器将学习率设为 %1。</translation>
    </message>
    <message>
        <source>The learning-rate finder is running: wait for it or cancel it.</source>
        <translation>学习率查找器正在运行：请等待其完成或取消。</translation>
    </message>
    <message>
        <source>A run is training; find the learning rate when it has ended.</source>
        <translation>有运行正在训练；请在其结束后再查找学习率。</translation>
    </message>
    <message>
        <source> folds</source>
        <translation> 折</translation>
    </message>
    <message>
        <source>How many folds Cross-Validate splits the training images into: one run per fold.</source>
        <translation>交叉验证把训练图像分成几折：每折一次训练。</translation>
    </message>
    <message>
        <source>Cross-Validate</source>
        <translation>交叉验证</translation>
    </message>
    <message>
        <source>Check the settings, then train them once per fold, each run holding out one fold of the training images and scoring it: the metric&apos;s mean and spread over the folds, and out-of-fold predictions for the Data page&apos;s Suspected Label Errors tab. The same as lathe-cli train --folds K.</source>
        <translation>检查设置，然后每折训练一次，每次留出训练图像中的一折并在其上评分：得到指标在各折上的均值与离散程度，以及供“数据”页“疑似标注错误”标签页使用的折外预测。与 lathe-cli train --folds K 相同。</translation>
    </message>
    <message>
        <source>A cross-validation is going on.</source>
        <translation>交叉验证正在进行。</translation>
    </message>
    <message>
        <source>%1 training images cannot be split into %2 folds.</source>
        <translation>%1 张训练图像无法分成 %2 折。</translation>
    </message>
    <message>
        <source>Cross-validation: %1</source>
        <translation>交叉验证：%1</translation>
    </message>
    <message>
        <source>Continuing the cross-validation in %1…</source>
        <translation>正在继续 %1 中的交叉验证…</translation>
    </message>
    <message>
        <source>%1-fold cross-validation: %2 %3 ± %4 (folds: %5)</source>
        <translation>%1 折交叉验证：%2 %3 ± %4（各折：%5）</translation>
    </message>
    <message>
        <source>Cross-validation finished.</source>
        <translation>交叉验证已完成。</translation>
    </message>
    <message>
        <source>&lt;b&gt;%1&lt;/b&gt; — %2&lt;br&gt;Its out-of-fold predictions are in this folder: the Data page&apos;s Suspected Label Errors tab lists it, to find the images that are probably labelled wrong. Each fold is a run folder inside it (fold-1 … fold-%3).</source>
        <translation>&lt;b&gt;%1&lt;/b&gt; — %2&lt;br&gt;折外预测保存在此文件夹中：“数据”页的“疑似标注错误”标签页会列出它，用来找出可能标错的图像。每折是其中的一个运行文件夹（fold-1 … fold-%3）。</translation>
    </message>
    <message>
        <source>Cross-validation stopped: %1</source>
        <translation>交叉验证已停止：%1</translation>
    </message>
    <message>
        <source>Cross-validation stopped in %1. &lt;a href=&quot;continue&quot;&gt;Continue it&lt;/a&gt;: the finished folds are kept and the stopped one resumes from its last checkpoint.</source>
        <translation>%1 中的交叉验证已停止。&lt;a href=&quot;continue&quot;&gt;继续&lt;/a&gt;：已完成的折保留，停止的那一折从其最后一个检查点继续。</translation>
    </message>
    <message>
        <source>Cross-validation stopped before its first fold started.</source>
        <translation>交叉验证在第一折开始前已停止。</translation>
    </message>
    <message>
        <source>The cross-validation failed: %1</source>
        <translation>交叉验证失败：%1</translation>
    </message>
    <message>
        <source>Cross-validation failed in %1. &lt;a href=&quot;continue&quot;&gt;Try again&lt;/a&gt; (the finished folds are kept).</source>
        <translation>%1 中的交叉验证失败。&lt;a href=&quot;continue&quot;&gt;重试&lt;/a&gt;（已完成的折会保留）。</translation>
    </message>
    <message>
        <source>Cross-validation failed in %1.</source>
        <translation>%1 中的交叉验证失败。</translation>
    </message>
    <message>
        <source>Starting %1-fold cross-validation in %2… (each fold is a run folder inside it; the Live tab draws the fold being trained)</source>
        <translation>正在 %2 中开始 %1 折交叉验证…（每一折都是其中的一个运行文件夹；“实时”选项卡绘制正在训练的那一折）</translation>
    </message>
</context>
<context>
    <name>lathe::ui::TrainingCurves</name>
    <message>
        <source>Log scale</source>
        <translation>对数坐标</translation>
    </message>
    <message>
        <source>Follow latest</source>
        <translation>跟随最新</translation>
    </message>
    <message>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Accuracy (top-1)</source>
        <translation>准确率（Top-1）</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步</translation>
    </message>
    <message>
        <source>step (smoothed)</source>
        <translation>步（平滑）</translation>
    </message>
    <message>
        <source>train (epoch)</source>
        <translation>训练（轮次）</translation>
    </message>
    <message>
        <source>validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>images/s</source>
        <translation>图像/秒</translation>
    </message>
    <message>
        <source>input wait %</source>
        <translation>输入等待 %</translation>
    </message>
    <message>
        <source>Logarithmic loss axis.</source>
        <translation>损失轴使用对数坐标。</translation>
    </message>
    <message>
        <source>Keep the newest steps in view; dragging or zooming a plot turns it off.</source>
        <translation>使最新的步数保持在视图中；拖动或缩放图表会关闭此功能。</translation>
    </message>
    <message>
        <source>Smoothing of the step loss (exponential moving average).</source>
        <translation>每步损失的平滑程度（指数移动平均）。</translation>
    </message>
    <message>
        <source>Smoothing:</source>
        <translation>平滑：</translation>
    </message>
    <message>
        <source>%1 at step %2: %3</source>
        <translation>第 %2 步的%1：%3</translation>
    </message>
</context>
<context>
    <name>lathe::ui::TrainingLivePanel</name>
    <message>
        <source>, about %1 left</source>
        <translation>，预计剩余 %1</translation>
    </message>
    <message>
        <source>Epoch %1, step %2 — loss %3, %4 images/s, input wait %5 %%6</source>
        <translation>第 %1 轮，第 %2 步 — 损失 %3，%4 张图像/秒，输入等待 %5 %%6</translation>
    </message>
    <message>
        <source>Epoch %1</source>
        <translation>第 %1 轮</translation>
    </message>
    <message>
        <source>train loss %1</source>
        <translation>训练损失 %1</translation>
    </message>
    <message>
        <source>validation loss %1</source>
        <translation>验证损失 %1</translation>
    </message>
    <message>
        <source>train top-1 %1 %</source>
        <translation>训练 Top-1 %1 %</translation>
    </message>
    <message>
        <source>validation top-1 %1 %</source>
        <translation>验证 Top-1 %1 %</translation>
    </message>
    <message>
        <source>top-5 %1 %</source>
        <translation>Top-5 %1 %</translation>
    </message>
    <message>
        <source>Checkpoint at step %1: %2</source>
        <translation>第 %1 步的检查点：%2</translation>
    </message>
    <message>
        <source>Resumed at step %1.</source>
        <translation>已从第 %1 步恢复。</translation>
    </message>
    <message>
        <source>Step %1 skipped: fp16 gradients overflowed (%2 skipped so far).</source>
        <translation>已跳过第 %1 步：fp16 梯度溢出（目前共跳过 %2 步）。</translation>
    </message>
    <message>
        <source>Continuing…</source>
        <translation>正在继续…</translation>
    </message>
    <message>
        <source>%1 before the first step: press Resume to continue.</source>
        <translation>%1（第一步之前）：点击“继续”以继续。</translation>
    </message>
    <message>
        <source>%1 at epoch %2, step %3: press Resume to continue.</source>
        <translation>%1（第 %2 轮，第 %3 步）：点击“继续”以继续。</translation>
    </message>
    <message>
        <source>, GPU memory %1 MiB (peak %2 MiB, reserved %3 MiB)</source>
        <translation>，GPU 显存 %1 MiB（峰值 %2 MiB，已保留 %3 MiB）</translation>
    </message>
    <message>
        <source>, GPU busy %1 %</source>
        <translation>，GPU 繁忙 %1 %</translation>
    </message>
</context>
<context>
    <name>lathe::ui::TrialTableModel</name>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>completed</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>pruned</source>
        <translation>已剪枝</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>Run folder: %1</source>
        <translation>运行文件夹：%1</translation>
    </message>
    <message>
        <source>running: epoch %1, step %2 of %3</source>
        <translation>运行中：第 %1 轮，第 %2 / %3 步</translation>
    </message>
    <message>
        <source>Trial</source>
        <translation>试验</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>Rung</source>
        <translation>级</translation>
    </message>
</context>
<context>
    <name>lathe::ui::TunePage</name>
    <message>
        <source>Study</source>
        <translation>研究</translation>
    </message>
    <message>
        <source>A new study, or one of the project&apos;s studies to watch or continue.</source>
        <translation>新建研究，或选择项目中已有的研究以查看或继续。</translation>
    </message>
    <message>
        <source>Study:</source>
        <translation>研究：</translation>
    </message>
    <message>
        <source>The folder of the new study inside the project&apos;s runs folder.</source>
        <translation>新研究在项目运行文件夹中的文件夹名。</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Every trial starts from the Train page&apos;s settings (dataset, model, augmentation, optimiser); the fields ticked below vary.</source>
        <translation>每个试验都从训练页的设置（数据集、模型、数据增强、优化器）开始；下方勾选的字段会变化。</translation>
    </message>
    <message>
        <source>Search space</source>
        <translation>搜索空间</translation>
    </message>
    <message>
        <source>Strategy and budget</source>
        <translation>策略与预算</translation>
    </message>
    <message>
        <source>TPE (Bayesian)</source>
        <translation>TPE（贝叶斯）</translation>
    </message>
    <message>
        <source>Random</source>
        <translation>随机</translation>
    </message>
    <message>
        <source>Grid</source>
        <translation>网格</translation>
    </message>
    <message>
        <source>How each trial&apos;s values are chosen. TPE models the good and the bad trials so far (Optuna&apos;s default); Grid tries every combination of Grid fields.</source>
        <translation>每个试验的取值如何选择。TPE 对迄今为止的好试验和坏试验建模（Optuna 的默认方法）；网格尝试网格字段的所有组合。</translation>
    </message>
    <message>
        <source>Sampler:</source>
        <translation>采样器：</translation>
    </message>
    <message>
        <source>ASHA (successive halving)</source>
        <translation>ASHA（逐次减半）</translation>
    </message>
    <message>
        <source>Hyperband</source>
        <translation>Hyperband</translation>
    </message>
    <message>
        <source>Median stopping</source>
        <translation>中位数停止</translation>
    </message>
    <message>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Stops hopeless trials early: ASHA lets a trial train on only while its metric is in the top third at each rung (1, 3, 9 … epochs).</source>
        <translation>提前停止没有希望的试验：ASHA 只让在每一级（1、3、9 … 个轮次）指标位于前三分之一的试验继续训练。</translation>
    </message>
    <message>
        <source>Early stopping:</source>
        <translation>提前停止：</translation>
    </message>
    <message>
        <source>What the study optimises: the highest validation top-1, or the lowest loss.</source>
        <translation>研究优化的目标：最高的验证 top-1，或最低的损失。</translation>
    </message>
    <message>
        <source>Metric:</source>
        <translation>指标：</translation>
    </message>
    <message>
        <source>Trials:</source>
        <translation>试验数：</translation>
    </message>
    <message>
        <source>As on the Train page</source>
        <translation>与训练页相同</translation>
    </message>
    <message>
        <source>The most epochs a trial trains (ASHA&apos;s and Hyperband&apos;s largest rung).</source>
        <translation>一个试验最多训练的轮数（ASHA 和 Hyperband 的最高一级）。</translation>
    </message>
    <message>
        <source>Epochs per trial:</source>
        <translation>每个试验的轮数：</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>No limit</source>
        <translation>无限制</translation>
    </message>
    <message>
        <source>No new trial starts once the study has run this long.</source>
        <translation>研究运行到这么长时间后不再开始新的试验。</translation>
    </message>
    <message>
        <source>Time limit:</source>
        <translation>时间限制：</translation>
    </message>
    <message>
        <source>TPE: the first trials are drawn at random, before it models the results.</source>
        <translation>TPE：在对结果建模之前，最初的试验随机抽取。</translation>
    </message>
    <message>
        <source>Random first trials:</source>
        <translation>随机的初始试验：</translation>
    </message>
    <message>
        <source>The same seed and settings propose the same trials.</source>
        <translation>相同的种子和设置会提出相同的试验。</translation>
    </message>
    <message>
        <source>Seed:</source>
        <translation>种子：</translation>
    </message>
    <message>
        <source>Trials trained at once; the memory estimate may run fewer.</source>
        <translation>同时训练的试验数；内存估计可能会减少同时运行的数量。</translation>
    </message>
    <message>
        <source>Trials at once:</source>
        <translation>同时试验数：</translation>
    </message>
    <message>
        <source>Start Study</source>
        <translation>开始研究</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Holds the running trials between steps and starts no new one.</source>
        <translation>在步骤之间暂停正在运行的试验，并且不开始新的试验。</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Each running trial writes a checkpoint and stops; Continue Study goes on from there.</source>
        <translation>每个正在运行的试验写入检查点后停止；“继续研究”会从那里继续。</translation>
    </message>
    <message>
        <source>Train This Config Fully</source>
        <translation>完整训练此配置</translation>
    </message>
    <message>
        <source>Puts the best completed trial&apos;s settings on the Train page, with the Train page&apos;s number of epochs.</source>
        <translation>把最佳已完成试验的设置放到训练页上，轮数使用训练页的设置。</translation>
    </message>
    <message>
        <source>New study</source>
        <translation>新建研究</translation>
    </message>
    <message>
        <source>Tick the fields to vary, then Start Study.</source>
        <translation>勾选要变化的字段，然后点击“开始研究”。</translation>
    </message>
    <message>
        <source>Open a project to run a study.</source>
        <translation>请先打开一个项目再运行研究。</translation>
    </message>
    <message>
        <source>Tick at least one field to vary.</source>
        <translation>请至少勾选一个要变化的字段。</translation>
    </message>
    <message>
        <source>%1 exists already in the runs folder: choose another name.</source>
        <translation>%1 已存在于运行文件夹中：请换一个名称。</translation>
    </message>
    <message>
        <source>Name the study (a folder name, without /).</source>
        <translation>请为研究命名（一个不含 / 的文件夹名）。</translation>
    </message>
    <message>
        <source>Continue Study</source>
        <translation>继续研究</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>A study is running already: stop it first.</source>
        <translation>已有研究正在运行：请先停止它。</translation>
    </message>
    <message>
        <source>No Train page settings to start from.</source>
        <translation>没有可作为起点的训练页设置。</translation>
    </message>
    <message>
        <source>Choose a converted dataset on the Train page first.</source>
        <translation>请先在训练页选择一个已转换的数据集。</translation>
    </message>
    <message>
        <source>Stopped: Continue Study goes on from each trial&apos;s checkpoint.</source>
        <translation>已停止：“继续研究”会从每个试验的检查点继续。</translation>
    </message>
    <message>
        <source>The study failed: %1</source>
        <translation>研究失败：%1</translation>
    </message>
    <message>
        <source>Continuing the study…</source>
        <translation>正在继续研究…</translation>
    </message>
    <message>
        <source>Starting the study…</source>
        <translation>正在开始研究…</translation>
    </message>
    <message>
        <source>Stopping: each running trial writes its checkpoint…</source>
        <translation>正在停止：每个正在运行的试验正在写入检查点…</translation>
    </message>
    <message>
        <source>Best so far: trial %1, %2 %3</source>
        <translation>目前最佳：试验 %1，%2 %3</translation>
    </message>
    <message>
        <source>%1 of %2 trials ended</source>
        <translation>%2 个试验中已结束 %1 个</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>The study finished: best trial %1 (%2 %3). Train This Config Fully puts its settings on the Train page.</source>
        <translation>研究已完成：最佳试验 %1（%2 %3）。“完整训练此配置”会把它的设置放到训练页上。</translation>
    </message>
    <message>
        <source>The study finished without a completed trial.</source>
        <translation>研究已结束，但没有完成的试验。</translation>
    </message>
    <message numerus="yes">
        <source>%n trial(s)</source>
        <translation>
            <numerusform>%n 个试验</numerusform>
        </translation>
    </message>
    <message>
        <source>best: trial %1, %2 %3</source>
        <translation>最佳：试验 %1，%2 %3</translation>
    </message>
    <message numerus="yes">
        <source>%n trial(s) stopped while running: Continue Study resumes them</source>
        <translation>
            <numerusform>%n 个试验在运行中被停止：“继续研究”会恢复它们</numerusform>
        </translation>
    </message>
    <message>
        <source>No trial has completed yet.</source>
        <translation>还没有完成的试验。</translation>
    </message>
    <message>
        <source>Trial %1&apos;s settings are on the Train page.</source>
        <translation>试验 %1 的设置已放到训练页上。</translation>
    </message>
</context>
<context>
    <name>lathe::ui::WelcomePage</name>
    <message>
        <source>Welcome to Lathe</source>
        <translation>欢迎使用 Lathe</translation>
    </message>
    <message>
        <source>Train image classifiers from folders of images: import, inspect, train on CPU or GPUs, evaluate and export. Start with a project.</source>
        <translation>从图像文件夹训练图像分类器：导入、检查、在 CPU 或 GPU 上训练、评估和导出。请先创建或打开一个项目。</translation>
    </message>
    <message>
        <source>New Project…</source>
        <translation>新建项目…</translation>
    </message>
    <message>
        <source>Open Project…</source>
        <translation>打开项目…</translation>
    </message>
    <message>
        <source>Create Demo Project</source>
        <translation>创建演示项目</translation>
    </message>
    <message>
        <source>Writes real Fashion-MNIST images as class folders and creates a project for them</source>
        <translation>将真实的 Fashion-MNIST 图像写入类别文件夹，并为其创建项目</translation>
    </message>
    <message>
        <source>Recent projects</source>
        <translation>最近的项目</translation>
    </message>
    <message>
        <source>No recent projects</source>
        <translation>没有最近的项目</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::Catalog</name>
    <message>
        <source>%1: cannot read or update the dataset catalog (%2)</source>
        <translation>%1：无法读取或更新数据集目录（%2）</translation>
    </message>
    <message>
        <source>A dataset needs a name</source>
        <translation>数据集需要一个名称</translation>
    </message>
    <message>
        <source>No image %1 in the catalog; it may have been removed by a re-import</source>
        <translation>目录中没有图像 %1；它可能已在重新导入时被移除</translation>
    </message>
    <message>
        <source>%1: cannot relabel it as &quot;%2&quot;: dataset &quot;%3&quot; has no such class</source>
        <translation>%1：无法将其重新标注为“%2”：数据集“%3”中没有该类别</translation>
    </message>
    <message>
        <source>%1: cannot relabel it as &quot;%2&quot;: dataset &quot;%3&quot; is multi-label; edit the image&apos;s label set instead</source>
        <translation>%1：无法将其重新标注为“%2”：数据集“%3”是多标签数据集；请改为编辑该图像的标签集</translation>
    </message>
    <message>
        <source>%1: dataset &quot;%2&quot; has one class per image (its class folders); relabel the image instead of giving it a label set</source>
        <translation>%1：数据集“%2”每张图像只有一个类别（来自其类别文件夹）；请重新标注该图像，而不是为它设置标签集</translation>
    </message>
    <message>
        <source>%1: an image needs at least one label; exclude it instead</source>
        <translation>%1：图像至少需要一个标签；如需去掉它，请排除它</translation>
    </message>
    <message>
        <source>%1: cannot give it the label &quot;%2&quot;: dataset &quot;%3&quot; has no such label</source>
        <translation>%1：无法为其设置标签“%2”：数据集“%3”没有这个标签</translation>
    </message>
    <message>
        <source>%1: cannot add the label &quot;%2&quot;: %3</source>
        <translation>%1：无法添加标签“%2”：%3</translation>
    </message>
    <message>
        <source>%1: dataset &quot;%2&quot; has one class per image (its class folders); it has no labels file to reset the image&apos;s labels to</source>
        <translation>%1：数据集“%2”每张图像只有一个类别（来自其类别文件夹）；没有可用于恢复图像标签的标签文件</translation>
    </message>
    <message>
        <source>%1: cannot reset its labels: dataset &quot;%2&quot; records no labels file</source>
        <translation>%1：无法恢复其标签：数据集“%2”没有记录标签文件</translation>
    </message>
    <message>
        <source>%1: cannot reset its labels to the labels file&apos;s: %2 is gone (re-import the dataset with its labels file, or tick the labels by hand)</source>
        <translation>%1：无法恢复为标签文件中的标签：%2 已不存在（请用其标签文件重新导入数据集，或手动勾选标签）</translation>
    </message>
    <message>
        <source>%1: cannot reset its labels: %2 was modified (%3) after the dataset was imported (%4), so its rows may no longer be the ones imported; re-import the dataset (your edits are kept), then reset the image</source>
        <translation>%1：无法恢复其标签：%2 在数据集导入（%4）之后被修改（%3），其中的行可能已不是导入时的内容；请重新导入数据集（您的编辑会保留），然后再恢复该图像</translation>
    </message>
    <message>
        <source>%1: cannot reset its labels: %2</source>
        <translation>%1：无法恢复其标签：%2</translation>
    </message>
    <message>
        <source>%1: cannot reset its labels: %2 has no usable row for it</source>
        <translation>%1：无法恢复其标签：%2 中没有它的可用行</translation>
    </message>
    <message>
        <source>a label needs a name (spaces alone are none)</source>
        <translation>标签需要名称（仅有空格不算）</translation>
    </message>
    <message>
        <source>a label has at most %1 characters; this one has %2</source>
        <translation>标签最多 %1 个字符；此标签有 %2 个</translation>
    </message>
    <message>
        <source>a label cannot hold &apos;;&apos; or &apos;|&apos; (they separate the labels in a labels file)</source>
        <translation>标签不能包含“;”或“|”（它们在标签文件中用于分隔标签）</translation>
    </message>
    <message>
        <source>a label cannot hold &apos;,&apos; (it separates the columns of a CSV labels file)</source>
        <translation>标签不能包含“,”（它在 CSV 标签文件中用于分隔列）</translation>
    </message>
    <message>
        <source>a label cannot hold a line break, a tab or another control character</source>
        <translation>标签不能包含换行符、制表符或其他控制字符</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::ConvertJob</name>
    <message>
        <source>Convert to shards</source>
        <translation>转换为分片</translation>
    </message>
    <message>
        <source>%1: the project has no dataset &quot;%2&quot;</source>
        <translation>%1：项目中没有数据集“%2”</translation>
    </message>
    <message>
        <source>No image folder was given to convert</source>
        <translation>未指定要转换的图像文件夹</translation>
    </message>
    <message>
        <source>No output folder was given for the shards</source>
        <translation>未指定分片的输出文件夹</translation>
    </message>
    <message>
        <source>The shard size must be at least 1 MiB</source>
        <translation>分片大小至少为 1 MiB</translation>
    </message>
    <message>
        <source>Converting to shards</source>
        <translation>正在转换为分片</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::CrossValidationJob</name>
    <message>
        <source>Continuing cross-validation %1</source>
        <translation>继续交叉验证 %1</translation>
    </message>
    <message>
        <source>Cross-validation %1 (%2 folds)</source>
        <translation>交叉验证 %1（%2 折）</translation>
    </message>
    <message>
        <source>Fold %1 of %2</source>
        <translation>第 %1 折，共 %2 折</translation>
    </message>
    <message>
        <source>Fold %1 of %2: epoch %3 of %4, step %5 of %6</source>
        <translation>第 %1/%2 折：第 %3/%4 轮，第 %5/%6 步</translation>
    </message>
    <message>
        <source>Fold %1 of %2: step %3 of %4</source>
        <translation>第 %1/%2 折：第 %3/%4 步</translation>
    </message>
    <message>
        <source>Fold %1 of %2: scoring the images it held out</source>
        <translation>第 %1/%2 折：正在为留出的图像评分</translation>
    </message>
    <message>
        <source>%1 folds done</source>
        <translation>%1 折已完成</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::DatasetWarnings</name>
    <message>
        <source>and %L1 more</source>
        <translation>还有 %L1 项</translation>
    </message>
    <message>
        <source>Split &quot;%1&quot; has no images: there is nothing to train on.</source>
        <translation>划分“%1”中没有图像：没有可用于训练的内容。</translation>
    </message>
    <message numerus="yes">
        <source>Split &quot;%1&quot; is tiny: %2 images for %n class(es), fewer than %3 per class; a model trained on so few learns little that holds for new images.</source>
        <translation>
            <numerusform>划分“%1”过小：%n 个类别只有 %2 张图像，每个类别少于 %3 张；用这么少的图像训练的模型，学到的东西很难适用于新图像。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>No images in split &quot;%1&quot; for %n class(es), which cannot be learned: %2.</source>
        <translation>
            <numerusform>划分“%1”中有 %n 个类别没有图像，这些类别无法被学习：%2。</numerusform>
        </translation>
    </message>
    <message>
        <source>Split &quot;%1&quot; has no images: training cannot measure validation accuracy, and the best checkpoint cannot be chosen by it.</source>
        <translation>划分“%1”中没有图像：训练无法测量验证准确率，也无法据此选出最佳检查点。</translation>
    </message>
    <message numerus="yes">
        <source>Split &quot;%1&quot; is tiny: %2 images for %n class(es); its accuracy moves in steps of %3 %.</source>
        <translation>
            <numerusform>划分“%1”过小：%n 个类别只有 %2 张图像；其准确率以 %3 % 为步长变化。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>No images in split &quot;%1&quot; for %n class(es), whose accuracy is never measured: %2.</source>
        <translation>
            <numerusform>划分“%1”中有 %n 个类别没有图像，这些类别的准确率永远不会被测量：%2。</numerusform>
        </translation>
    </message>
    <message>
        <source>Batch size %1 is larger than the %2 images of split &quot;%3&quot;: not one full batch fits, so training cannot start. Choose a batch size of at most %2.</source>
        <translation>批大小 %1 大于划分“%3”中的图像数 %2：连一个完整批次都凑不齐，因此无法开始训练。请选择不超过 %2 的批大小。</translation>
    </message>
    <message numerus="yes">
        <source>Batch size %1 leaves %2 of the %3 images of split &quot;%4&quot; out of every epoch: an epoch uses %5 images (%n full batch(es); the last, partial batch is dropped).</source>
        <translation>
            <numerusform>批大小 %1 使划分“%4”的 %3 张图像中有 %2 张在每个轮次中都被遗漏：每个轮次使用 %5 张图像（%n 个完整批次；最后一个不完整的批次被丢弃）。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::workspace::DemoProjectJob</name>
    <message>
        <source>Create the Fashion-MNIST demo project</source>
        <translation>创建 Fashion-MNIST 演示项目</translation>
    </message>
    <message>
        <source>%1: cannot create the folder</source>
        <translation>%1：无法创建文件夹</translation>
    </message>
    <message>
        <source>Writing demo images</source>
        <translation>正在写入演示图像</translation>
    </message>
    <message>
        <source>Creating the project</source>
        <translation>正在创建项目</translation>
    </message>
    <message>
        <source>Fashion-MNIST demo</source>
        <translation>Fashion-MNIST 演示</translation>
    </message>
    <message>
        <source>Importing demo images</source>
        <translation>正在导入演示图像</translation>
    </message>
    <message>
        <source>Cannot write the recipe: %1</source>
        <translation>无法写入配方：%1</translation>
    </message>
    <message>
        <source>Timing the quick recipe&apos;s training steps on this machine</source>
        <translation>正在这台机器上计时快速配方的训练步骤</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::EvaluateJob</name>
    <message>
        <source>Evaluate %1</source>
        <translation>评估 %1</translation>
    </message>
    <message>
        <source>No run was given to evaluate</source>
        <translation>未指定要评估的运行</translation>
    </message>
    <message>
        <source>Evaluating</source>
        <translation>正在评估</translation>
    </message>
    <message>
        <source>Storing the predictions</source>
        <translation>正在保存预测结果</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::EvaluationStore</name>
    <message>
        <source>%1: cannot start a transaction (%2)</source>
        <translation>%1：无法开始事务（%2）</translation>
    </message>
    <message>
        <source>%1: cannot store the evaluation (%2)</source>
        <translation>%1：无法保存评估结果（%2）</translation>
    </message>
    <message>
        <source>%1: there is no stored evaluation %2</source>
        <translation>%1：没有已保存的评估 %2</translation>
    </message>
    <message>
        <source>%1: the metrics of evaluation %2 are not a JSON object</source>
        <translation>%1：评估 %2 的指标不是 JSON 对象</translation>
    </message>
    <message>
        <source>%1: evaluation %2 has a malformed class list (%3)</source>
        <translation>%1：评估 %2 的类别列表格式错误（%3）</translation>
    </message>
    <message>
        <source>%1: prediction %2 of evaluation %3 is malformed (%4)</source>
        <translation>%1：评估 %3 的预测 %2 格式错误（%4）</translation>
    </message>
    <message>
        <source>%1: prediction %2 of evaluation %3 has %4 classes but %5 probabilities</source>
        <translation>%1：评估 %3 的预测 %2 有 %4 个类别，但有 %5 个概率值</translation>
    </message>
    <message>
        <source>%1: prediction %2 of evaluation %3 has label %4 outside the %5 classes</source>
        <translation>%1：评估 %3 的预测 %2 的标签 %4 超出了 %5 个类别</translation>
    </message>
    <message>
        <source>%1: prediction %2 of evaluation %3 has %4 scores for %5 classes</source>
        <translation>%1：评估 %3 的预测 %2 有 %4 个分数，但有 %5 个类别</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::ExportRunJob</name>
    <message>
        <source>Export %1</source>
        <translation>导出 %1</translation>
    </message>
    <message>
        <source>No run was given to export</source>
        <translation>未指定要导出的运行</translation>
    </message>
    <message>
        <source>No output folder was given for the export</source>
        <translation>未指定导出的输出文件夹</translation>
    </message>
    <message>
        <source>Exporting</source>
        <translation>正在导出</translation>
    </message>
    <message>
        <source>Recording the export</source>
        <translation>正在记录导出</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::ExportStore</name>
    <message>
        <source>%1: there is no recorded export %2</source>
        <translation>%1：没有已记录的导出 %2</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::GradCamJob</name>
    <message>
        <source>Grad-CAM of %1</source>
        <translation>%1 的 Grad-CAM</translation>
    </message>
    <message>
        <source>Loading the model and explaining the image</source>
        <translation>正在加载模型并解释图像</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::ImportJob</name>
    <message>
        <source>Import images</source>
        <translation>导入图像</translation>
    </message>
    <message>
        <source>Scanning images</source>
        <translation>正在扫描图像</translation>
    </message>
    <message>
        <source>No image folder was given to import</source>
        <translation>未指定要导入的图像文件夹</translation>
    </message>
    <message>
        <source>Updating the catalog</source>
        <translation>正在更新目录</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::Job</name>
    <message>
        <source>unexpected error</source>
        <translation>意外错误</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::LabelIssuesJob</name>
    <message>
        <source>Find label errors in %1</source>
        <translation>在 %1 中查找标注错误</translation>
    </message>
    <message>
        <source>No folds run was given</source>
        <translation>未指定交叉验证运行</translation>
    </message>
    <message>
        <source>Reading the out-of-fold predictions</source>
        <translation>正在读取折外预测</translation>
    </message>
    <message>
        <source>The folds run %1 gives %2 labels to %3; a single-label run gives one.</source>
        <translation>交叉验证运行 %1 为 %3 给出了 %2 个标注；单标签运行只给出一个。</translation>
    </message>
    <message>
        <source>Reading the catalog</source>
        <translation>正在读取目录</translation>
    </message>
    <message>
        <source>None of the %1 images of the folds run %2 is in this dataset: it was trained on another dataset, or on files that have changed since.</source>
        <translation>交叉验证运行 %2 的 %1 张图像都不在此数据集中：它是在另一个数据集上训练的，或其文件之后已改动。</translation>
    </message>
    <message>
        <source>Finding label errors</source>
        <translation>正在查找标注错误</translation>
    </message>
    <message numerus="yes">
        <source>%n suspected label error(s)</source>
        <translation>
            <numerusform>%n 个疑似标注错误</numerusform>
        </translation>
    </message>
    <message>
        <source>The folds run %1 is %2: only single-label and multi-label runs are checked for label errors here.</source>
        <translation>交叉验证运行 %1 的任务是 %2：这里只检查单标签和多标签运行的标注错误。</translation>
    </message>
    <message>
        <source>The folds run %1 is multi-label (a label set per image), but dataset &quot;%2&quot; has one class per image: pick a folds run trained on this dataset.</source>
        <translation>交叉验证运行 %1 是多标签的（每张图像一个标签集），但数据集“%2”每张图像只有一个类别：请选择在此数据集上训练的交叉验证运行。</translation>
    </message>
    <message>
        <source>The folds run %1 is single-label (one class per image), but dataset &quot;%2&quot; gives each image a label set: pick a folds run trained on this dataset.</source>
        <translation>交叉验证运行 %1 是单标签的（每张图像一个类别），但数据集“%2”为每张图像给出一个标签集：请选择在此数据集上训练的交叉验证运行。</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::LrFindJob</name>
    <message>
        <source>Finding the learning rate</source>
        <translation>正在查找学习率</translation>
    </message>
    <message>
        <source>Step %1 of %2: learning rate %3</source>
        <translation>第 %1 步（共 %2 步）：学习率 %3</translation>
    </message>
    <message>
        <source>Building the model…</source>
        <translation>正在构建模型…</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::Migrations</name>
    <message>
        <source>%1: cannot read the database (%2). The file is damaged or is not a Lathe project database.</source>
        <translation>%1：无法读取数据库（%2）。该文件已损坏，或不是 Lathe 项目数据库。</translation>
    </message>
    <message>
        <source>%1: cannot start a transaction (%2)</source>
        <translation>%1：无法开始事务（%2）</translation>
    </message>
    <message>
        <source>%1: upgrading the schema to version %2 failed (%3); the project was left unchanged at version %4</source>
        <translation>%1：将数据库结构升级到版本 %2 失败（%3）；项目保持在版本 %4，未作更改</translation>
    </message>
    <message>
        <source>%1: cannot commit the schema upgrade (%2)</source>
        <translation>%1：无法提交数据库结构升级（%2）</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::PredictFilesJob</name>
    <message>
        <source>Classify %1</source>
        <translation>分类 %1</translation>
    </message>
    <message numerus="yes">
        <source>Classify %n file(s) or folder(s)</source>
        <translation>
            <numerusform>分类 %n 个文件或文件夹</numerusform>
        </translation>
    </message>
    <message>
        <source>Classifying</source>
        <translation>正在分类</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::Project</name>
    <message>
        <source>%1: exists and is not a folder</source>
        <translation>%1：已存在且不是文件夹</translation>
    </message>
    <message>
        <source>%1: the folder is not empty; a new project needs a new or empty folder</source>
        <translation>%1：文件夹不为空；新项目需要新的或空的文件夹</translation>
    </message>
    <message>
        <source>%1: cannot create the folder</source>
        <translation>%1：无法创建文件夹</translation>
    </message>
    <message>
        <source>%1: cannot create the database (%2)</source>
        <translation>%1：无法创建数据库（%2）</translation>
    </message>
    <message>
        <source>%1: folder not found</source>
        <translation>%1：找不到文件夹</translation>
    </message>
    <message>
        <source>%1: not a Lathe project (it has no %2)</source>
        <translation>%1：不是 Lathe 项目（缺少 %2）</translation>
    </message>
    <message>
        <source>%1: cannot open the database (%2)</source>
        <translation>%1：无法打开数据库（%2）</translation>
    </message>
    <message>
        <source>%1: the database is damaged (%2); it was left untouched</source>
        <translation>%1：数据库已损坏（%2）；未对其作任何改动</translation>
    </message>
    <message>
        <source>%1: cannot switch the database to WAL mode (%2)</source>
        <translation>%1：无法将数据库切换到 WAL 模式（%2）</translation>
    </message>
    <message>
        <source>%1: cannot enable foreign keys (%2)</source>
        <translation>%1：无法启用外键约束（%2）</translation>
    </message>
    <message>
        <source>%1: cannot write to the database (%2)</source>
        <translation>%1：无法写入数据库（%2）</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::ProjectConnection</name>
    <message>
        <source>%1: cannot open the database (%2)</source>
        <translation>%1：无法打开数据库（%2）</translation>
    </message>
    <message>
        <source>%1: database error (%2)</source>
        <translation>%1：数据库错误（%2）</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::ProjectDatabase</name>
    <message>
        <source>%1: file not found</source>
        <translation>%1：找不到文件</translation>
    </message>
    <message>
        <source>%1: no permission to read the file</source>
        <translation>%1：没有读取该文件的权限</translation>
    </message>
    <message>
        <source>%1: the file is damaged or is not a SQLite database; it was left untouched</source>
        <translation>%1：文件已损坏或不是 SQLite 数据库；未对其作任何改动</translation>
    </message>
    <message>
        <source>%1: a SQLite database of another program, not a Lathe project; it was left untouched</source>
        <translation>%1：这是其他程序的 SQLite 数据库，不是 Lathe 项目；未对其作任何改动</translation>
    </message>
    <message>
        <source>%1: written by a newer version of Lathe (schema %2; this version reads up to %3). Update Lathe to open it; the project was left untouched.</source>
        <translation>%1：由更新版本的 Lathe 写入（结构版本 %2；当前版本最高支持 %3）。请升级 Lathe 后再打开；未对项目作任何改动。</translation>
    </message>
    <message>
        <source>%1: the disk is full (%2); the change was rolled back and the project keeps its earlier state</source>
        <translation>%1：磁盘已满（%2）；此次更改已回滚，项目保持之前的状态</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::RunState</name>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>已失败</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Interrupted</source>
        <translation>已中断</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::ServeJob</name>
    <message>
        <source>Serve %1</source>
        <translation>为 %1 提供服务</translation>
    </message>
    <message>
        <source>Serving %1 at %2 (requests: %3, errors: %4, last latency: %5 ms)</source>
        <translation>正在 %2 为 %1 提供服务（请求：%3，错误：%4，最近延迟：%5 毫秒）</translation>
    </message>
    <message>
        <source>&quot;%1&quot; cannot be a model name: use letters, digits, &apos;_&apos;, &apos;-&apos; and &apos;.&apos; (at most 128)</source>
        <translation>“%1”不能作为模型名称：请使用字母、数字、“_”、“-”和“.”（最多 128 个）</translation>
    </message>
    <message>
        <source>No address was given to listen on</source>
        <translation>没有给出要监听的地址</translation>
    </message>
    <message>
        <source>%1 is not an export folder (it has no report.json)</source>
        <translation>%1 不是导出文件夹（其中没有 report.json）</translation>
    </message>
    <message>
        <source>%1 is not a TCP port (1 to 65535)</source>
        <translation>%1 不是 TCP 端口（1 到 65535）</translation>
    </message>
    <message>
        <source>Cannot listen on %1 port %2: the port is in use (port %3 is free), or the address is not one of this computer&apos;s.</source>
        <translation>无法在 %1 的端口 %2 上监听：端口已被占用（端口 %3 空闲），或该地址不属于本机。</translation>
    </message>
    <message>
        <source>Cannot listen on %1 port %2: the port is in use, or the address is not one of this computer&apos;s.</source>
        <translation>无法在 %1 的端口 %2 上监听：端口已被占用，或该地址不属于本机。</translation>
    </message>
    <message>
        <source>Loading %1</source>
        <translation>正在加载 %1</translation>
    </message>
    <message>
        <source>Cannot serve %1: %2</source>
        <translation>无法为 %1 提供服务：%2</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::ShardManifest</name>
    <message>
        <source>%1: not a dataset.json; choose the dataset.json in a converted dataset&apos;s folder</source>
        <translation>%1：不是 dataset.json；请选择已转换数据集文件夹中的 dataset.json</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::SplitNames</name>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>Test</source>
        <translation>测试</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::TrainJob</name>
    <message>
        <source>Training %1</source>
        <translation>训练 %1</translation>
    </message>
    <message>
        <source>Epoch %1 of %2</source>
        <translation>第 %1 / %2 轮</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::TuneJob</name>
    <message>
        <source>Continuing study %1</source>
        <translation>继续研究 %1</translation>
    </message>
    <message>
        <source>Study %1</source>
        <translation>研究 %1</translation>
    </message>
    <message>
        <source>%1 of %2 trials ended</source>
        <translation>%2 个试验中已结束 %1 个</translation>
    </message>
    <message numerus="yes">
        <source>%n trial(s) ended</source>
        <translation>
            <numerusform>已结束 %n 个试验</numerusform>
        </translation>
    </message>
    <message>
        <source>Opening the study…</source>
        <translation>正在打开研究…</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::WeightsDownloadJob</name>
    <message>
        <source>%1 %2: &quot;%3&quot; is not a plain file name</source>
        <translation>%1 %2：“%3”不是普通的文件名</translation>
    </message>
    <message>
        <source>%1: the catalog&apos;s SHA-256 prefix &quot;%2&quot; is not lower-case hex</source>
        <translation>%1：目录中的 SHA-256 前缀“%2”不是小写十六进制</translation>
    </message>
    <message>
        <source>%1: read error (%2)</source>
        <translation>%1：读取错误（%2）</translation>
    </message>
    <message>
        <source>%1 is already being downloaded</source>
        <translation>%1 已在下载中</translation>
    </message>
    <message>
        <source>Download %1 weights</source>
        <translation>下载 %1 权重</translation>
    </message>
    <message>
        <source>%1: not an http(s) address</source>
        <translation>%1：不是 http(s) 地址</translation>
    </message>
    <message>
        <source>%1: cannot create the weights cache folder</source>
        <translation>%1：无法创建权重缓存文件夹</translation>
    </message>
    <message>
        <source>Checking %1</source>
        <translation>正在检查 %1</translation>
    </message>
    <message>
        <source>%1 is already in the cache</source>
        <translation>%1 已在缓存中</translation>
    </message>
    <message>
        <source>%1: does not match the catalog and cannot be replaced</source>
        <translation>%1：与目录不符，且无法替换</translation>
    </message>
    <message>
        <source>Could not download %1: the server does not send it from the start</source>
        <translation>无法下载 %1：服务器未从头发送该文件</translation>
    </message>
    <message>
        <source>%1: cannot open (%2)</source>
        <translation>%1：无法打开（%2）</translation>
    </message>
    <message>
        <source>Checking the partial download of %1</source>
        <translation>正在检查 %1 的部分下载</translation>
    </message>
    <message>
        <source>%1: cannot write (%2)</source>
        <translation>%1：无法写入（%2）</translation>
    </message>
    <message>
        <source>Could not download %1: HTTP %2 %3</source>
        <translation>无法下载 %1：HTTP %2 %3</translation>
    </message>
    <message>
        <source>Downloading %1: %2 of %3 MiB</source>
        <translation>正在下载 %1：%2 / %3 MiB</translation>
    </message>
    <message>
        <source>Downloading %1: %2 MiB</source>
        <translation>正在下载 %1：%2 MiB</translation>
    </message>
    <message>
        <source>the connection ended after %1 of %2 bytes</source>
        <translation>连接在接收 %2 字节中的 %1 字节后中断</translation>
    </message>
    <message>
        <source>Could not download %1: %2. The %3 bytes received are kept in %4; downloading again continues from there.</source>
        <translation>无法下载 %1：%2。已接收的 %3 字节保存在 %4 中；再次下载时将从该处继续。</translation>
    </message>
    <message>
        <source>%1: checksum mismatch: the SHA-256 of the file from %2 starts with %3, the catalog expects %4. The download was deleted.</source>
        <translation>%1：校验和不匹配：来自 %2 的文件的 SHA-256 以 %3 开头，而目录期望的是 %4。已删除下载的文件。</translation>
    </message>
    <message>
        <source>Downloaded %1</source>
        <translation>已下载 %1</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::WeightsImportJob</name>
    <message>
        <source>%1: cannot read (%2)</source>
        <translation>%1：无法读取（%2）</translation>
    </message>
    <message>
        <source>it is a folder</source>
        <translation>这是一个文件夹</translation>
    </message>
    <message>
        <source>%1: cannot create the weights cache folder</source>
        <translation>%1：无法创建权重缓存文件夹</translation>
    </message>
    <message>
        <source>%1: cannot write (%2)</source>
        <translation>%1：无法写入（%2）</translation>
    </message>
    <message>
        <source>Checking %1</source>
        <translation>正在检查 %1</translation>
    </message>
    <message>
        <source>%1: read error (%2)</source>
        <translation>%1：读取错误（%2）</translation>
    </message>
    <message>
        <source>%1: matches no catalog entry (its SHA-256 is %2), so it was not imported; only the weight files the model zoo lists can be imported</source>
        <translation>%1：与目录中的任何条目都不匹配（其 SHA-256 为 %2），因此未导入；只能导入模型库中列出的权重文件</translation>
    </message>
    <message>
        <source>Import weights</source>
        <translation>导入权重</translation>
    </message>
</context>
</TS>
