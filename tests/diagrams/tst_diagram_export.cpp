// SPDX-License-Identifier: GPL-3.0-or-later
// exportDiagram: every view to PNG and SVG, neither blank nor empty, and clear errors.
#include <QtTest>

#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <set>

#include "diagram_panel.hpp"

using tilescope::ElementType;
using tilescope::KernelConfig;
using tilescope::Shape;
using tilescope::ui::exportDiagram;

Q_DECLARE_METATYPE(tilescope::Shape)
Q_DECLARE_METATYPE(tilescope::ElementType)

class TestDiagramExport : public QObject {
  Q_OBJECT

 private slots:
  void init() { QVERIFY(dir_.isValid()); }
  void everyViewExportsAVariedPng_data();
  void everyViewExportsAVariedPng();
  void svgHoldsTheTileRectangles();
  void tensorCoreAccessSaysHowItReads();
  void closedLibraryExportsItsMessage();
  void refusesWhatItCannotDraw();

 private:
  QTemporaryDir dir_;
};

void TestDiagramExport::everyViewExportsAVariedPng_data() {
  QTest::addColumn<QString>("view");
  QTest::addColumn<QString>("kernel");
  QTest::addColumn<QString>("params");
  QTest::addColumn<Shape>("shape");
  QTest::addColumn<ElementType>("element");
  for (const char* view : {"matrix", "kstep", "block", "access", "timeline"}) {
    for (const char* kernel :
         {"serial", "row-per-thread", "naive", "shared-a", "shared-tiled", "register-tiled"})
      QTest::addRow("%s %s", view, kernel)
          << QString::fromLatin1(view) << QString::fromLatin1(kernel) << QString()
          << Shape{45, 37, 21} << ElementType::F32;
    // The ladder at its defaults and at its largest tiles, on odd shapes of one and of several
    // blocks (scalar copies: K and N are not multiples of 4).
    for (const char* kernel :
         {"blocktile-1d", "blocktile-2d", "vectorized", "warptile", "pipelined", "prefetched"}) {
      const std::string largest = tilescope::formatParams(
          tilescope::validConfigurations(tilescope::kernelInfo(kernel)).back());
      for (const QString& params : {QString(), QString::fromStdString(largest)})
        for (const Shape& shape : {Shape{37, 29, 13}, Shape{257, 129, 65}})
          QTest::addRow("%s %s %s %lldx%lldx%lld", view, kernel, qPrintable(params),
                        static_cast<long long>(shape.m), static_cast<long long>(shape.n),
                        static_cast<long long>(shape.k))
              << QString::fromLatin1(view) << QString::fromLatin1(kernel) << params << shape
              << ElementType::F32;
    }
    // The tensor cores in each of their types, on a shape of several blocks with scalar copies
    // (K and N odd) and on one with 16-byte copies.
    for (const ElementType type : tilescope::kernelInfo("tensor-mma").types)
      for (const Shape& shape : {Shape{257, 129, 65}, Shape{256, 512, 96}})
        QTest::addRow("%s tensor-mma %s %lldx%lldx%lld", view, tilescope::toString(type),
                      static_cast<long long>(shape.m), static_cast<long long>(shape.n),
                      static_cast<long long>(shape.k))
            << QString::fromLatin1(view) << QStringLiteral("tensor-mma") << QString() << shape
            << type;
  }
}

void TestDiagramExport::everyViewExportsAVariedPng() {
  QFETCH(QString, view);
  QFETCH(QString, kernel);
  QFETCH(QString, params);
  QFETCH(Shape, shape);
  QFETCH(ElementType, element);
  const QString path = dir_.filePath(view + kernel + QStringLiteral(".png"));
  QString error;
  const KernelConfig config{kernel.toStdString(), tilescope::parseParams(params.toStdString())};
  QVERIFY2(exportDiagram(view, config, shape, element, path, &error), qPrintable(error));
  const QImage image(path);
  QCOMPARE(image.size(), QSize(1400, 900));
  std::set<QRgb> colours;
  for (int y = 0; y < image.height(); y += 4)
    for (int x = 0; x < image.width(); x += 4) colours.insert(image.pixel(x, y));
  QVERIFY2(colours.size() > 10, qPrintable(QString::number(colours.size())));
}

// shared-tiled with tile 8 on 64^3 has 8 x 8 blocks: the SVG must hold at least 64 rectangles.
void TestDiagramExport::svgHoldsTheTileRectangles() {
  const QString path = dir_.filePath(QStringLiteral("matrix.svg"));
  QString error;
  QVERIFY2(exportDiagram(QStringLiteral("matrix"), {"shared-tiled", {{"tile", 8}}}, {64, 64, 64},
                         std::nullopt, path, &error),
           qPrintable(error));
  QFile file(path);
  QVERIFY(file.open(QIODevice::ReadOnly));
  const QByteArray svg = file.readAll();
  QVERIFY(svg.contains("<svg"));
  QVERIFY(svg.contains("TileScope matrix diagram"));
  QVERIFY2(svg.count("<rect") >= 64, qPrintable(QString::number(svg.count("<rect"))));
}

// The access view of tensor-mma names its 2-byte vectors and its ldmatrix reads in fp16, its
// plain word reads in tf32.
void TestDiagramExport::tensorCoreAccessSaysHowItReads() {
  const auto svgText = [&](ElementType element) {
    const QString path = dir_.filePath(QStringLiteral("access.svg"));
    QString error;
    if (!exportDiagram(
            QStringLiteral("access"),
            {"tensor-mma",
             {{"BM", 128}, {"BN", 256}, {"BK", 32}, {"WM", 64}, {"WN", 64}, {"stages", 3}}},
            {256, 256, 64}, element, path, &error))
      return error.toUtf8();
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
  };
  const QByteArray fp16 = svgText(ElementType::F16);
  QVERIFY(fp16.contains("tensor-mma (BM=128,BN=256,BK=32,WM=64,WN=64,stages=3) in fp16"));
  QVERIFY(fp16.contains("16-byte vector of 8 elements each"));
  QVERIFY(fp16.contains("As with ldmatrix.x4"));
  QVERIFY(fp16.contains("m16n8k16"));
  const QByteArray tf32 = svgText(ElementType::TF32);
  QVERIFY(tf32.contains("float4 of 4 elements each"));
  QVERIFY(!tf32.contains("ldmatrix"));
  QVERIFY(tf32.contains("m16n8k8"));
}

void TestDiagramExport::closedLibraryExportsItsMessage() {
  const QString path = dir_.filePath(QStringLiteral("library.png"));
  QString error;
  QVERIFY2(exportDiagram(QStringLiteral("block"), {"library", {}}, {64, 64, 64}, ElementType::BF16,
                         path, &error),
           qPrintable(error));
  QVERIFY(!QImage(path).isNull());
}

void TestDiagramExport::refusesWhatItCannotDraw() {
  QString error;
  const QString png = dir_.filePath(QStringLiteral("x.png"));
  QVERIFY(
      !exportDiagram(QStringLiteral("flow"), {"naive", {}}, {8, 8, 8}, std::nullopt, png, &error));
  QVERIFY2(error.contains(QStringLiteral("unknown view 'flow'")), qPrintable(error));
  QVERIFY(!exportDiagram(QStringLiteral("matrix"), {"naive", {{"tile", 33}}}, {8, 8, 8},
                         std::nullopt, png, &error));
  QVERIFY2(error.contains(QStringLiteral("33")), qPrintable(error));
  QVERIFY(!exportDiagram(QStringLiteral("matrix"), {"naive", {}}, {8, 8, 8}, std::nullopt,
                         dir_.filePath(QStringLiteral("x.jpg")), &error));
  QVERIFY2(error.contains(QStringLiteral(".png or .svg")), qPrintable(error));
  QVERIFY(!exportDiagram(QStringLiteral("matrix"), {"naive", {}}, {8, 8, 8}, std::nullopt,
                         dir_.filePath(QStringLiteral("missing/dir/x.png")), &error));
  QVERIFY(!error.isEmpty());
  // A type the kernel does not multiply is refused with the catalogue's reason.
  QVERIFY(!exportDiagram(QStringLiteral("access"), {"naive", {}}, {8, 8, 8}, ElementType::F16, png,
                         &error));
  QVERIFY2(error.contains(QStringLiteral("'naive' multiplies fp32 only")), qPrintable(error));
  QVERIFY(!error.isEmpty());
  QVERIFY(!QFile::exists(png));
}

QTEST_MAIN(TestDiagramExport)
#include "tst_diagram_export.moc"
