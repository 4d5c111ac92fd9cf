// SPDX-License-Identifier: GPL-3.0-or-later
// The Kernel Editor: highlighting, the gutter, find, compiling off the window's thread with the
// compiler's messages marked at their lines, every template compiling, the compiler's limits
// and Cancel as the app has them (a child process), and .cu files saved and opened through the one
// writer and reader.
#include <QAction>
#include <QComboBox>
#include <QElapsedTimer>
#include <QListWidget>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QVBoxLayout>
#include <QtTest>

#include "kernel_editor.hpp"
#include "tilescope/compile/compile_child.hpp"
#include "tilescope/user_kernel.hpp"
#include "ui_suite.hpp"

using namespace tilescope;
using tilescope::ui::CodeEditor;
using tilescope::ui::CudaHighlighter;
using tilescope::ui::KernelEditor;

namespace {

// The highlighting kind of the first `word` on the first line that holds it.
QString kindOf(CodeEditor* editor, const QString& word) {
  for (QTextBlock block = editor->document()->begin(); block.isValid(); block = block.next()) {
    const int at = int(block.text().indexOf(word));
    if (at >= 0) return CudaHighlighter::kindAt(block, at);
  }
  return QStringLiteral("(not found)");
}

bool compileAndWait(KernelEditor& editor, int results = 1) {
  QSignalSpy done(&editor, &KernelEditor::compiled);
  editor.compile();
  while (done.count() < results)
    if (!done.wait(60000)) return false;
  return true;
}

// Compiles in a child with `limits`, as the app does, while it lives.
struct IsolatedCompiles {
  explicit IsolatedCompiles(const compile::Limits& limits) {
    compile::isolateCompiles(TILESCOPE_BENCH, limits);
  }
  ~IsolatedCompiles() { setIsolatedCompiler({}); }
};

// The naive template after 4,096 constant evaluations of a million steps each: minutes in NVRTC.
QString slowSource() {
  return QStringLiteral(
             "constexpr long long spin(int n) {\n"
             "  long long s = 0;\n"
             "  for (int i = 0; i < 1000; ++i)\n"
             "    for (int j = 0; j < 1000; ++j) s += i ^ j ^ n;\n"
             "  return s;\n"
             "}\n"
             "template <int Lo, int Hi> struct Bomb {\n"
             "  static constexpr long long value =\n"
             "      Bomb<Lo, (Lo + Hi) / 2>::value + Bomb<(Lo + Hi) / 2, Hi>::value;\n"
             "};\n"
             "template <int Lo> struct Bomb<Lo, Lo + 1> {\n"
             "  static constexpr long long value = spin(Lo);\n"
             "};\n"
             "constexpr long long bomb = Bomb<0, 4096>::value;\n") +
         QString::fromStdString(userKernelTemplate("naive")->source);
}

}  // namespace

class TestKernelEditor : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void initTestCase() {
    // The editor remembers its text size: in the test settings, never the user's.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("TileScopeTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_kernel_editor"));
  }

  void highlightingMarksEachKindOfToken() {
    KernelEditor editor;
    QVERIFY(editor.newFrom(QStringLiteral("shared-tiled")));
    CodeEditor* code = editor.editor();
    QCOMPARE(kindOf(code, QStringLiteral("__shared__")), QStringLiteral("qualifier"));
    QCOMPARE(kindOf(code, QStringLiteral("__syncthreads")), QStringLiteral("qualifier"));
    QCOMPARE(kindOf(code, QStringLiteral("for (")), QStringLiteral("keyword"));
    QCOMPARE(kindOf(code, QStringLiteral("float sum")), QStringLiteral("type"));
    QCOMPARE(kindOf(code, QStringLiteral("threadIdx")), QStringLiteral("builtin"));
    QCOMPARE(kindOf(code, QStringLiteral("TS_KERNEL")), QStringLiteral("api"));
    QCOMPARE(kindOf(code, QStringLiteral("0.0f")), QStringLiteral("number"));
    QCOMPARE(kindOf(code, QStringLiteral("// shared-tiled")), QStringLiteral("comment"));
    // A block comment spans lines; what follows it is code again.
    code->setPlainText(QStringLiteral("/* one\nfor two */ int x;\n"));
    QCOMPARE(kindOf(code, QStringLiteral("for two")), QStringLiteral("comment"));
    QCOMPARE(kindOf(code, QStringLiteral("int x")), QStringLiteral("type"));
    // The declarations of a kernel are the API's too.
    QVERIFY(editor.newFrom(QStringLiteral("tensor-tma")));
    for (const char* word : {"TS_TYPES", "TS_KSTEP", "TS_TENSOR_MAPS", "TS_KERNEL_BOUNDED"})
      QCOMPARE(kindOf(code, QString::fromLatin1(word)), QStringLiteral("api"));
    QVERIFY(editor.newFrom(QStringLiteral("tensor-persistent")));
    for (const char* word : {"TS_CLUSTER", "TS_PERSISTENT"})
      QCOMPARE(kindOf(code, QString::fromLatin1(word) + QLatin1Char('(')), QStringLiteral("api"));
  }

  // A hostile file's line of 60,000 characters is highlighted like a short one: the string
  // pattern takes linear time and never runs out of matcher stack (PCRE2's JIT would give up).
  void aLineTensOfKilobytesLongIsHighlightedToItsEnd() {
    KernelEditor editor;
    CodeEditor* code = editor.editor();
    const QString literal =
        QLatin1Char('"') + QStringLiteral("a\\").repeated(20000) + QStringLiteral("end\"");
    code->setPlainText(QStringLiteral("const char* s = ") + literal + QStringLiteral("; int y;\n"));
    const QTextBlock line = code->document()->begin();
    QCOMPARE(CudaHighlighter::kindAt(line, int(line.text().indexOf(QStringLiteral("end\"")))),
             QStringLiteral("string"));
    QCOMPARE(kindOf(code, QStringLiteral("int y")), QStringLiteral("type"));
  }

  void theGutterWidensWithTheLineCount() {
    CodeEditor code;
    code.setPlainText(QStringLiteral("a\nb\n"));
    const int narrow = code.gutterWidth();
    code.setPlainText(QString(QStringLiteral("x\n")).repeated(150));
    QVERIFY(code.gutterWidth() > narrow);
  }

  void findGoesToEachMatchAndWrapsAround() {
    KernelEditor editor;
    QVERIFY(editor.newFrom(QStringLiteral("naive")));
    CodeEditor* code = editor.editor();
    QVERIFY(code->findText(QStringLiteral("sum")));
    const int first = code->textCursor().blockNumber();
    QCOMPARE(code->textCursor().selectedText(), QStringLiteral("sum"));
    QVERIFY(code->findText(QStringLiteral("sum")));
    QVERIFY(code->textCursor().blockNumber() >= first);
    for (int i = 0; i < 10; ++i) QVERIFY(code->findText(QStringLiteral("sum")));  // wraps
    QVERIFY(code->findText(QStringLiteral("sum"), /*backward=*/true));
    QVERIFY(!code->findText(QStringLiteral("no such text")));
  }

  void compilerMessagesAreMarkedAtTheirLines() {
    if (const auto why = userKernelCompilerUnavailable()) QSKIP(why->c_str());
    KernelEditor editor;
    // The list of messages takes no room from the code while it has none.
    QVERIFY(editor.messages()->isHidden());
    editor.setKernel(QStringLiteral("broken"),
                     QStringLiteral("TS_LAUNCH(32, 1, 1, 1, 0)\nTS_KERNEL {\n  int unused;\n"
                                    "  float x = ;\n}\n"));
    QVERIFY(compileAndWait(editor));
    QVERIFY(editor.lastResult() && !editor.lastResult()->ok);
    const auto& marked = editor.editor()->diagnostics();
    QVERIFY(std::any_of(marked.begin(), marked.end(),
                        [](const CompileDiagnostic& d) { return d.line == 4 && d.error; }));
    QVERIFY(std::any_of(marked.begin(), marked.end(),
                        [](const CompileDiagnostic& d) { return d.line == 3 && !d.error; }));
    QVERIFY(editor.editor()->extraSelections().size() >= 2);
    QCOMPARE(editor.messages()->count(), int(marked.size()));
    QVERIFY(!editor.messages()->isHidden());
    // A message takes the cursor to its line.
    for (int i = 0; i < editor.messages()->count(); ++i) {
      QListWidgetItem* item = editor.messages()->item(i);
      if (!item->text().startsWith(QStringLiteral("error line 4"))) continue;
      emit editor.messages()->itemActivated(item);
      QCOMPARE(editor.editor()->textCursor().blockNumber(), 3);
    }
    QVERIFY2(editor.summary().startsWith(QStringLiteral("Not compiled: 1 error(s), 1 warning(s)")),
             qPrintable(editor.summary()));
  }

  void everyTemplateCompilesWithItsResources() {
    if (const auto why = userKernelCompilerUnavailable()) QSKIP(why->c_str());
    KernelEditor editor;
    for (const UserKernelTemplate& t : userKernelTemplates()) {
      QVERIFY(editor.newFrom(QString::fromStdString(t.kernel)));
      QVERIFY(compileAndWait(editor));
      QVERIFY2(editor.lastResult()->ok, t.kernel.c_str());
      QVERIFY(editor.editor()->diagnostics().empty());
      QVERIFY(editor.messages()->isHidden());
      QVERIFY2(editor.summary().contains(QStringLiteral("registers per thread")),
               qPrintable(editor.summary()));
    }
  }

  // The type picker lists what the source's TS_TYPES declares (tensor-fp8's template: e4m3 and
  // e5m2), follows an edit of it, and Compile checks the type picked.
  void theTypePickerListsTheDeclaredTypesAndCompilesThePickedOne() {
    KernelEditor editor;
    auto* picker = editor.findChild<QComboBox*>(QStringLiteral("type"));
    QVERIFY(picker);
    const auto listed = [picker] {
      QStringList names;
      for (int i = 0; i < picker->count(); ++i) names << picker->itemText(i);
      return names;
    };
    QCOMPARE(listed(), QStringList{QStringLiteral("fp32")});  // naive's
    QVERIFY(editor.newFrom(QStringLiteral("tensor-fp8")));
    QCOMPARE(listed(), (QStringList{QStringLiteral("e4m3"), QStringLiteral("e5m2")}));
    QCOMPARE(picker->currentText(), QStringLiteral("e4m3"));
    QVERIFY2(picker->itemData(1, Qt::ToolTipRole).toString().contains(QStringLiteral("K-major")),
             qPrintable(picker->itemData(1, Qt::ToolTipRole).toString()));
    picker->setCurrentIndex(1);
    // A source whose types differ: the one picked stays where it is still declared.
    const QString source = QStringLiteral(
        "TS_TYPES(fp16, e5m2)\nTS_LAUNCH(32, 1, 1, 1, 0)\n"
        "static_assert(TS_ELEMENT_BYTES == 1 && TS_B_K_MAJOR, \"an FP8 type\");\n"
        "TS_KERNEL { ts::storeC(p, 0, 0, ts::toFloat(ts::loadB(p, 0, 0))); }\n");
    editor.editor()->setPlainText(source);
    QCOMPARE(listed(), (QStringList{QStringLiteral("fp16"), QStringLiteral("e5m2")}));
    QCOMPARE(picker->currentText(), QStringLiteral("e5m2"));
    if (const auto why = userKernelCompilerUnavailable()) QSKIP(why->c_str());
    QVERIFY(compileAndWait(editor));
    QVERIFY2(editor.lastResult()->ok, qPrintable(editor.summary()));
    picker->setCurrentIndex(0);  // fp16: the static_assert fails
    QVERIFY(compileAndWait(editor));
    QVERIFY(!editor.lastResult()->ok);
  }

  // Ctrl+B again while compiling: the newest source follows, and its result is the last.
  void aCompileWhileOneRunsFollowsWithTheNewestSource() {
    if (const auto why = userKernelCompilerUnavailable()) QSKIP(why->c_str());
    KernelEditor editor;
    QVERIFY(editor.newFrom(QStringLiteral("naive")));
    QSignalSpy done(&editor, &KernelEditor::compiled);
    editor.compile();
    editor.editor()->setPlainText(QStringLiteral("TS_KERNEL { broken }\n"));
    editor.compile();
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 60000);
    QVERIFY(!editor.lastResult()->ok);
  }

  // As in the app: a compile past the time limit ends with that message, and the editor goes
  // on compiling.
  void aCompileOverTheTimeLimitEndsWithAMessage() {
    if (const auto why = userKernelCompilerUnavailable()) QSKIP(why->c_str());
    const compile::Limits limits{2, 0};
    const IsolatedCompiles isolated(limits);
    KernelEditor editor;
    editor.setKernel(QStringLiteral("bomb"), slowSource());
    QElapsedTimer timer;
    timer.start();
    QVERIFY(compileAndWait(editor));
    QVERIFY2(timer.elapsed() < 15000, qPrintable(QString::number(timer.elapsed())));
    QVERIFY(!editor.lastResult()->ok);
    QCOMPARE(editor.messages()->count(), 1);
    QCOMPARE(editor.messages()->item(0)->text(),
             QStringLiteral("error program: ") +
                 QString::fromStdString(compile::timeLimitMessage(limits)));
    QVERIFY(editor.newFrom(QStringLiteral("naive")));
    QVERIFY(compileAndWait(editor));
    QVERIFY(editor.lastResult()->ok);
  }

  // Cancel (the window's, a run's) stops the compile in progress at once.
  void cancelStopsACompileInProgress() {
    if (const auto why = userKernelCompilerUnavailable()) QSKIP(why->c_str());
    const IsolatedCompiles isolated({60, 0});
    KernelEditor editor;
    editor.setKernel(QStringLiteral("bomb"), slowSource());
    QSignalSpy done(&editor, &KernelEditor::compiled);
    QElapsedTimer timer;
    timer.start();
    editor.compile();  // on the compiler's thread: Cancel reaches it starting or running
    editor.cancelCompile();
    QVERIFY(done.wait(10000));
    QVERIFY2(timer.elapsed() < 10000, qPrintable(QString::number(timer.elapsed())));
    QVERIFY(!editor.lastResult()->ok);
    QCOMPARE(editor.messages()->item(0)->text(),
             QStringLiteral("error program: the compile was cancelled"));
  }

  void runAsksForTheKernelAsItStands() {
    KernelEditor editor;
    QVERIFY(editor.newFrom(QStringLiteral("naive")));
    editor.editor()->appendPlainText(QStringLiteral("// edited"));
    QSignalSpy runs(&editor, &KernelEditor::runRequested);
    QAction* run = nullptr;
    for (QAction* action : editor.findChildren<QAction*>())
      if (action->text() == QStringLiteral("Run")) run = action;
    QVERIFY(run);
    QCOMPARE(run->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Return));
    run->trigger();
    QCOMPARE(runs.size(), 1);
    const auto kernel = runs.front().front().value<UserKernelSource>();
    QCOMPARE(kernel.name, std::string("my_naive"));
    QCOMPARE(QString::fromStdString(kernel.source), editor.editor()->toPlainText());
  }

  // Trace asks for a traced launch of the kernel as it stands; its first comment names the
  // catalogue kernel the diagrams draw it beside.
  void traceAsksForTheKernelAsItStands() {
    KernelEditor editor;
    QVERIFY(editor.newFrom(QStringLiteral("shared-tiled")));
    QSignalSpy traces(&editor, &KernelEditor::traceRequested);
    QAction* trace = nullptr;
    for (QAction* action : editor.findChildren<QAction*>())
      if (action->text() == QStringLiteral("Trace")) trace = action;
    QVERIFY(trace);
    QCOMPARE(trace->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    trace->trigger();
    QCOMPARE(traces.size(), 1);
    const auto kernel = traces.front().front().value<UserKernelSource>();
    QCOMPARE(kernel.name, std::string("my_shared_tiled"));
    QCOMPARE(kernel.source, userKernelTemplate("shared-tiled")->source);
  }

  void kernelsSaveAndOpenAsCuFiles() {
    KernelEditor editor;
    QVERIFY(editor.newFrom(QStringLiteral("shared-tiled")));
    const QString source = editor.editor()->toPlainText();
    const QString path = dir_.filePath(QStringLiteral("padded.cu"));
    QString error;
    QVERIFY2(editor.saveFile(path, &error), qPrintable(error));
    editor.newFrom(QStringLiteral("naive"));
    QVERIFY2(editor.openFile(path, &error), qPrintable(error));
    QCOMPARE(editor.editor()->toPlainText(), source);
    QCOMPARE(editor.kernelName(), QStringLiteral("padded"));
    // An unwritable place leaves nothing and says why; a missing file opens nothing.
    QVERIFY(!editor.saveFile(dir_.filePath(QStringLiteral("no/such/dir/k.cu")), &error));
    QVERIFY2(error.contains(QStringLiteral("k.cu")), qPrintable(error));
    QVERIFY(!editor.openFile(dir_.filePath(QStringLiteral("missing.cu")), &error));
    QCOMPARE(editor.editor()->toPlainText(), source);
  }
};

TILESCOPE_UI_SUITE(TestKernelEditor, Gui)
#include "tst_kernel_editor.moc"
