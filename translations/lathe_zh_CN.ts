<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
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
    <message>
        <source>No converted dataset is shown. Convert to Shards… writes the shown dataset as record shards; Open Converted Dataset… shows one written before.</source>
        <translation>未显示已转换的数据集。“转换为分片…”会将当前数据集写为记录分片；“打开已转换的数据集…”显示之前写入的数据集。</translation>
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
        <source>Choose a pretrained backbone (ResNet, EfficientNet, MobileNetV3, ConvNeXt, ViT), load its weights, replace the head for your classes and decide which layers train.</source>
        <translation>选择预训练骨干网络（ResNet、EfficientNet、MobileNetV3、ConvNeXt、ViT），加载其权重，为你的类别替换分类头，并决定哪些层参与训练。</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Set augmentation, optimiser, learning-rate schedule, mixed precision and devices, then train on background threads with live loss and accuracy curves, checkpoints and resume after a crash.</source>
        <translation>设置数据增强、优化器、学习率调度、混合精度和设备，然后在后台线程中训练，实时显示损失和准确率曲线，保存检查点，崩溃后可恢复训练。</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行记录</translation>
    </message>
    <message>
        <source>Compare runs side by side, read their curves and configurations, and manage their checkpoints.</source>
        <translation>并排比较各次运行，查看其曲线和配置，并管理其检查点。</translation>
    </message>
    <message>
        <source>Evaluate</source>
        <translation>评估</translation>
    </message>
    <message>
        <source>Per-class metrics, a confusion matrix you can click through to the misclassified images, calibration, Grad-CAM and predictions on new images.</source>
        <translation>逐类别指标、可点击查看错分图像的混淆矩阵、校准、Grad-CAM 以及对新图像的预测。</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>One-click export to ONNX (FP32, FP16, INT8), TorchScript and safetensors, each verified in an independent runtime.</source>
        <translation>一键导出为 ONNX（FP32、FP16、INT8）、TorchScript 和 safetensors，每种格式都在独立运行时中验证。</translation>
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
</context>
<context>
    <name>lathe::ui::NearDuplicateGroupModel</name>
    <message numerus="yes">
        <source>%n image(s): %1</source>
        <translation>
            <numerusform>%n 张图像：%1</numerusform>
        </translation>
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
    <name>lathe::ui::PlaceholderPage</name>
    <message>
        <source>Not built yet</source>
        <translation>尚未实现</translation>
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
    <name>lathe::ui::ShardManifest</name>
    <message>
        <source>%1: not a dataset.json; choose the dataset.json in a converted dataset&apos;s folder</source>
        <translation>%1：不是 dataset.json；请选择已转换数据集文件夹中的 dataset.json</translation>
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
    <name>lathe::ui::SplitNames</name>
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
        <source>%1: cannot write the file (%2)</source>
        <translation>%1：无法写入文件（%2）</translation>
    </message>
</context>
<context>
    <name>lathe::workspace::CatalogConnection</name>
    <message>
        <source>%1: cannot open the database (%2)</source>
        <translation>%1：无法打开数据库（%2）</translation>
    </message>
    <message>
        <source>%1: cannot enable foreign keys (%2)</source>
        <translation>%1：无法启用外键约束（%2）</translation>
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
</context>
</TS>
