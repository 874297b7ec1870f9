<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>Recipe</name>
    <message numerus="yes">
        <source>ResNet-18 from scratch at 32 px, AdamW (2e-3) with a one-cycle schedule, batch 64, %n epoch(s), horizontal flips. On 2 CPU cores it trains the Fashion-MNIST demo to 85-89% validation top-1 within 5 minutes.</source>
        <translation>
            <numerusform>ResNet-18 from scratch at 32 px, AdamW (2e-3) with a one-cycle schedule, batch 64, %n epoch, horizontal flips. On 2 CPU cores it trains the Fashion-MNIST demo to 85-89% validation top-1 within 5 minutes.</numerusform>
            <numerusform>ResNet-18 from scratch at 32 px, AdamW (2e-3) with a one-cycle schedule, batch 64, %n epochs, horizontal flips. On 2 CPU cores it trains the Fashion-MNIST demo to 85-89% validation top-1 within 5 minutes.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::AugmentationPreviewGrid</name>
    <message numerus="yes">
        <source>%n image(s) of the training split at %1 × %1 pixels, seed %2.</source>
        <translation>
            <numerusform>%n image of the training split at %1 × %1 pixels, seed %2.</numerusform>
            <numerusform>%n images of the training split at %1 × %1 pixels, seed %2.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::CalibrationPlot</name>
    <message numerus="yes">
        <source>%n precision-recall curve(s); the legend is hidden with more than 12 classes.</source>
        <translation>
            <numerusform>%n precision-recall curve; the legend is hidden with more than 12 classes.</numerusform>
            <numerusform>%n precision-recall curves; the legend is hidden with more than 12 classes.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::ClassBalanceChart</name>
    <message numerus="yes">
        <source>%1, %2: %n image(s)</source>
        <translation>
            <numerusform>%1, %2: %n image</numerusform>
            <numerusform>%1, %2: %n images</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::ConfusionMatrixView</name>
    <message numerus="yes">
        <source>True: %1
Predicted: %2
%n image(s), %3 of the true class</source>
        <translation>
            <numerusform>True: %1
Predicted: %2
%n image, %3 of the true class</numerusform>
            <numerusform>True: %1
Predicted: %2
%n images, %3 of the true class</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::DataPage</name>
    <message numerus="yes">
        <source>%1 · imported %2 · %3 images: %4 usable, %5 rejected, %6 duplicates, %7 excluded · %n class(es)</source>
        <translation>
            <numerusform>%1 · imported %2 · %3 images: %4 usable, %5 rejected, %6 duplicates, %7 excluded · %n class</numerusform>
            <numerusform>%1 · imported %2 · %3 images: %4 usable, %5 rejected, %6 duplicates, %7 excluded · %n classes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1: %2 records in %n shard(s)</source>
        <translation>
            <numerusform>%1: %2 records in %n shard</numerusform>
            <numerusform>%1: %2 records in %n shards</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n shard(s) · %1 records · %2 · %3 re-encoded · %4 of %5 files left out</source>
        <translation>
            <numerusform>%n shard · %1 records · %2 · %3 re-encoded · %4 of %5 files left out</numerusform>
            <numerusform>%n shards · %1 records · %2 · %3 re-encoded · %4 of %5 files left out</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>A group gathers the images whose perceptual hash (%1 bits) differs from its representative&apos;s, the first image, in at most %n bit(s).</source>
        <translation>
            <numerusform>A group gathers the images whose perceptual hash (%1 bits) differs from its representative&apos;s, the first image, in at most %n bit.</numerusform>
            <numerusform>A group gathers the images whose perceptual hash (%1 bits) differs from its representative&apos;s, the first image, in at most %n bits.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · labels from %2 · imported %3 · %4 images: %5 usable, %6 rejected, %7 duplicates, %8 excluded · multi-label, %n label(s)</source>
        <translation>
            <numerusform>%1 · labels from %2 · imported %3 · %4 images: %5 usable, %6 rejected, %7 duplicates, %8 excluded · multi-label, %n label</numerusform>
            <numerusform>%1 · labels from %2 · imported %3 · %4 images: %5 usable, %6 rejected, %7 duplicates, %8 excluded · multi-label, %n labels</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::DevicePicker</name>
    <message numerus="yes">
        <source> (%n rank(s))</source>
        <translation>
            <numerusform> (%n rank)</numerusform>
            <numerusform> (%n ranks)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n CPU rank(s) sharing %1 RAM</source>
        <translation>
            <numerusform>%n CPU rank sharing %1 RAM</numerusform>
            <numerusform>%n CPU ranks sharing %1 RAM</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The CUDA driver sees %n GPU(s), but this build of LibTorch has no CUDA support: training runs on the CPU.</source>
        <translation>
            <numerusform>The CUDA driver sees %n GPU, but this build of LibTorch has no CUDA support: training runs on the CPU.</numerusform>
            <numerusform>The CUDA driver sees %n GPUs, but this build of LibTorch has no CUDA support: training runs on the CPU.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::EvaluatePage</name>
    <message numerus="yes">
        <source>%1, %2 checkpoint (step %3), %4 split%5: top-1 %6, top-5 %7 over %n image(s); evaluated %8.</source>
        <translation>
            <numerusform>%1, %2 checkpoint (step %3), %4 split%5: top-1 %6, top-5 %7 over %n image; evaluated %8.</numerusform>
            <numerusform>%1, %2 checkpoint (step %3), %4 split%5: top-1 %6, top-5 %7 over %n images; evaluated %8.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n record(s) could not be read and were left out.</source>
        <translation>
            <numerusform>%n record could not be read and was left out.</numerusform>
            <numerusform>%n records could not be read and were left out.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1, %2 checkpoint (step %3), %4 split%5, multi-label: mAP %6 (micro %7) over %n image(s); evaluated %8.</source>
        <translation>
            <numerusform>%1, %2 checkpoint (step %3), %4 split%5, multi-label: mAP %6 (micro %7) over %n image; evaluated %8.</numerusform>
            <numerusform>%1, %2 checkpoint (step %3), %4 split%5, multi-label: mAP %6 (micro %7) over %n images; evaluated %8.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::FilePredictionPanel</name>
    <message numerus="yes">
        <source>Classifying %n file(s) or folder(s)…</source>
        <translation>
            <numerusform>Classifying %n file or folder…</numerusform>
            <numerusform>Classifying %n files or folders…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) classified</source>
        <translation>
            <numerusform>%n file classified</numerusform>
            <numerusform>%n files classified</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n could not be read</source>
        <translation>
            <numerusform>%n could not be read</numerusform>
            <numerusform>%n could not be read</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::ImageViewer</name>
    <message numerus="yes">
        <source>%n byte(s)</source>
        <translation>
            <numerusform>%n byte</numerusform>
            <numerusform>%n bytes</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::LabelCooccurrenceChart</name>
    <message numerus="yes">
        <source>%1: %n usable image(s) carry it</source>
        <translation>
            <numerusform>%1: %n usable image carries it</numerusform>
            <numerusform>%1: %n usable images carry it</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 and %2: %n image(s) carry both, %3 of the %1 images</source>
        <translation>
            <numerusform>%1 and %2: %n image carries both, %3 of the %1 images</numerusform>
            <numerusform>%1 and %2: %n images carry both, %3 of the %1 images</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::LabelIssuesPanel</name>
    <message numerus="yes">
        <source>%n suspected label error(s) among %1 images of %2.</source>
        <translation>
            <numerusform>%n suspected label error among %1 images of %2.</numerusform>
            <numerusform>%n suspected label errors among %1 images of %2.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n suspected label error(s) among those images cannot be listed.</source>
        <translation>
            <numerusform>%n suspected label error among those images cannot be listed.</numerusform>
            <numerusform>%n suspected label errors among those images cannot be listed.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::MainWindow</name>
    <message numerus="yes">
        <source>%n job(s) running</source>
        <translation>
            <numerusform>%n job running</numerusform>
            <numerusform>%n jobs running</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n job(s) are still running. Cancel them and quit?</source>
        <translation>
            <numerusform>%n job is still running. Cancel it and quit?</numerusform>
            <numerusform>%n jobs are still running. Cancel them and quit?</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::ModelPage</name>
    <message numerus="yes">
        <source>%n class(es), from %1</source>
        <translation>
            <numerusform>%n class, from %1</numerusform>
            <numerusform>%n classes, from %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::NearDuplicateGroupModel</name>
    <message numerus="yes">
        <source>%n image(s): %1</source>
        <translation>
            <numerusform>%n image: %1</numerusform>
            <numerusform>%n images: %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n image(s), within %1 of %2 bits: %3</source>
        <translation>
            <numerusform>%n image, within %1 of %2 bits: %3</numerusform>
            <numerusform>%n images, within %1 of %2 bits: %3</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::PredictionGalleryModel</name>
    <message numerus="yes">
        <source>True %1, predicted %2: %n image(s), highest loss first.</source>
        <translation>
            <numerusform>True %1, predicted %2: %n image, highest loss first.</numerusform>
            <numerusform>True %1, predicted %2: %n images, highest loss first.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>All %n image(s), highest loss first.</source>
        <translation>
            <numerusform>All %n image, highest loss first.</numerusform>
            <numerusform>All %n images, highest loss first.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Carrying %1, falsely predicted %2: %n image(s), highest loss first.</source>
        <translation>
            <numerusform>Carrying %1, falsely predicted %2: %n image, highest loss first.</numerusform>
            <numerusform>Carrying %1, falsely predicted %2: %n images, highest loss first.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::PreflightPanel</name>
    <message numerus="yes">
        <source>about %n s</source>
        <translation>
            <numerusform>about %n s</numerusform>
            <numerusform>about %n s</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>about %n min</source>
        <translation>
            <numerusform>about %n min</numerusform>
            <numerusform>about %n min</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Time on this CPU: %1 — %n epoch(s) of %2 steps at %3 s each</source>
        <translation>
            <numerusform>Time on this CPU: %1 — %n epoch of %2 steps at %3 s each</numerusform>
            <numerusform>Time on this CPU: %1 — %n epochs of %2 steps at %3 s each</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::RunTableModel</name>
    <message numerus="yes">
        <source>%1
Checkpoint %2 on the %3 split (%n image(s)%4), evaluated %5.</source>
        <translation>
            <numerusform>%1
Checkpoint %2 on the %3 split (%n image%4), evaluated %5.</numerusform>
            <numerusform>%1
Checkpoint %2 on the %3 split (%n images%4), evaluated %5.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::RunsPage</name>
    <message numerus="yes">
        <source>%n run(s) in %1.</source>
        <translation>
            <numerusform>%n run in %1.</numerusform>
            <numerusform>%n runs in %1.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::StudyCharts</name>
    <message numerus="yes">
        <source>Needs %n completed trial(s) to estimate how much each parameter matters (%1 so far).</source>
        <translation>
            <numerusform>Needs %n completed trial to estimate how much each parameter matters (%1 so far).</numerusform>
            <numerusform>Needs %n completed trials to estimate how much each parameter matters (%1 so far).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>All %n completed trial(s) reached the same metric: no parameter explains any difference yet.</source>
        <translation>
            <numerusform>All %n completed trial reached the same metric: no parameter explains any difference yet.</numerusform>
            <numerusform>All %n completed trials reached the same metric: no parameter explains any difference yet.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The share of the metric&apos;s variance each parameter explains on its own, over %n completed trial(s): a main-effect variance decomposition (η²), a simplification of fANOVA&apos;s first-order terms, not fANOVA itself. Effects that only appear when parameters act together are not counted, and with few trials even an irrelevant parameter explains a little.</source>
        <translation>
            <numerusform>The share of the metric&apos;s variance each parameter explains on its own, over %n completed trial: a main-effect variance decomposition (η²), a simplification of fANOVA&apos;s first-order terms, not fANOVA itself. Effects that only appear when parameters act together are not counted, and with few trials even an irrelevant parameter explains a little.</numerusform>
            <numerusform>The share of the metric&apos;s variance each parameter explains on its own, over %n completed trials: a main-effect variance decomposition (η²), a simplification of fANOVA&apos;s first-order terms, not fANOVA itself. Effects that only appear when parameters act together are not counted, and with few trials even an irrelevant parameter explains a little.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>How much each parameter matters will appear here after %n completed trial(s).</source>
        <translation>
            <numerusform>How much each parameter matters will appear here after %n completed trial.</numerusform>
            <numerusform>How much each parameter matters will appear here after %n completed trials.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::ui::TunePage</name>
    <message numerus="yes">
        <source>%n trial(s)</source>
        <translation>
            <numerusform>%n trial</numerusform>
            <numerusform>%n trials</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n trial(s) stopped while running: Continue Study resumes them</source>
        <translation>
            <numerusform>%n trial stopped while running: Continue Study resumes them</numerusform>
            <numerusform>%n trials stopped while running: Continue Study resumes them</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::workspace::DatasetWarnings</name>
    <message numerus="yes">
        <source>Split &quot;%1&quot; is tiny: %2 images for %n class(es), fewer than %3 per class; a model trained on so few learns little that holds for new images.</source>
        <translation>
            <numerusform>Split &quot;%1&quot; is tiny: %2 images for %n class, fewer than %3 per class; a model trained on so few learns little that holds for new images.</numerusform>
            <numerusform>Split &quot;%1&quot; is tiny: %2 images for %n classes, fewer than %3 per class; a model trained on so few learns little that holds for new images.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>No images in split &quot;%1&quot; for %n class(es), which cannot be learned: %2.</source>
        <translation>
            <numerusform>No images in split &quot;%1&quot; for %n class, which cannot be learned: %2.</numerusform>
            <numerusform>No images in split &quot;%1&quot; for %n classes, which cannot be learned: %2.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Split &quot;%1&quot; is tiny: %2 images for %n class(es); its accuracy moves in steps of %3 %.</source>
        <translation>
            <numerusform>Split &quot;%1&quot; is tiny: %2 images for %n class; its accuracy moves in steps of %3 %.</numerusform>
            <numerusform>Split &quot;%1&quot; is tiny: %2 images for %n classes; its accuracy moves in steps of %3 %.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>No images in split &quot;%1&quot; for %n class(es), whose accuracy is never measured: %2.</source>
        <translation>
            <numerusform>No images in split &quot;%1&quot; for %n class, whose accuracy is never measured: %2.</numerusform>
            <numerusform>No images in split &quot;%1&quot; for %n classes, whose accuracy is never measured: %2.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Batch size %1 leaves %2 of the %3 images of split &quot;%4&quot; out of every epoch: an epoch uses %5 images (%n full batch(es); the last, partial batch is dropped).</source>
        <translation>
            <numerusform>Batch size %1 leaves %2 of the %3 images of split &quot;%4&quot; out of every epoch: an epoch uses %5 images (%n full batch; the last, partial batch is dropped).</numerusform>
            <numerusform>Batch size %1 leaves %2 of the %3 images of split &quot;%4&quot; out of every epoch: an epoch uses %5 images (%n full batches; the last, partial batch is dropped).</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::workspace::LabelIssuesJob</name>
    <message numerus="yes">
        <source>%n suspected label error(s)</source>
        <translation>
            <numerusform>%n suspected label error</numerusform>
            <numerusform>%n suspected label errors</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::workspace::PredictFilesJob</name>
    <message numerus="yes">
        <source>Classify %n file(s) or folder(s)</source>
        <translation>
            <numerusform>Classify %n file or folder</numerusform>
            <numerusform>Classify %n files or folders</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>lathe::workspace::TuneJob</name>
    <message numerus="yes">
        <source>%n trial(s) ended</source>
        <translation>
            <numerusform>%n trial ended</numerusform>
            <numerusform>%n trials ended</numerusform>
        </translation>
    </message>
</context>
</TS>
