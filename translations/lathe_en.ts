<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
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
</TS>
