// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"
#include "core/cuda/ptx_line_map.h"
#include "core/cuda/sass_listing.h"
#include "core/eval/evaluation.h"

#include <QWidget>

class QCheckBox;
class QShowEvent;
class QSplitter;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QModelIndex;
class QPushButton;
class QSortFilterProxyModel;
class QTabWidget;
class QTableWidget;
class QTimer;
class QTreeView;

namespace dice {

class CodeEditor;
class DiagnosticModel;
class CompareView;
class CountersView;
class EvaluationView;
class FindBar;
class RunHistory;
class WorkbenchState;
struct RunRecord;

// Profile: compile a kernel (a native candidate's device part, or plain CUDA) on demand and
// after edits, with diagnostics in the editor and in a list; the PTX beside the source following
// the cursor, SASS where nvdisasm or cuobjdump is installed; resources and theoretical occupancy;
// evaluation against the task's reference off the GUI thread, with the pinned baseline's figures
// beside it; and the run history. The editor holds the state's candidate; compiles, evaluations,
// the run store and the baseline are the state's.
class ProfileArea : public QWidget {
    Q_OBJECT
public:
    enum Tab {
        DiagnosticsTab,
        PtxTab,
        SassTab,
        ResourcesTab,
        EvaluationTab,
        HistoryTab,
        CompareTab,
        CountersTab
    };

    explicit ProfileArea(WorkbenchState* state, QWidget* parent = nullptr);

    CodeEditor* editor() const { return m_editor; }
    // The line under the toolbar: what the last compile or evaluation came to.
    QString statusText() const;
    CodeEditor* ptxView() const { return m_ptx; }
    CodeEditor* sassView() const { return m_sass; }
    QTreeView* diagnosticsList() const { return m_diagnostics; }
    EvaluationView* evaluationView() const { return m_evaluationView; }
    RunHistory* history() const { return m_history; }
    CompareView* compareView() const { return m_compare; }
    CountersView* countersView() const { return m_counters; }
    QCustomPlot* occupancyPlot() const { return m_occupancy; }
    QTabWidget* tabs() const { return m_tabs; }
    const CompileResult& lastResult() const { return m_last; }
    const PtxLineMap& ptxMap() const { return m_ptxMap; }
    // PTX lines highlighted for the editor's current line (0-based).
    const std::vector<int>& highlightedPtxLines() const { return m_highlighted; }
    // The SASS shown, with the source line of each of its lines.
    const SassText& sassText() const { return m_sassText; }
    // SASS lines highlighted for the editor's current line (0-based).
    const std::vector<int>& highlightedSassLines() const { return m_highlightedSass; }

    // Puts a kernel in the editor that no file holds (a generated or infilled candidate, a
    // run): nothing to save, so no unsaved edits until the user types.
    void setSource(const QString& source);
    // A kernel or candidate file in the editor, to save back to; false with `error` when it
    // cannot be read.
    bool openFile(const QString& path, QString* error);
    // Writes the editor to `path` (atomically), which then is the editor's file.
    bool saveFile(const QString& path, QString* error);
    // The editor's file; empty when it holds a kernel no file holds.
    QString filePath() const { return m_filePath; }
    // Edits typed since the kernel was put in the editor, opened or saved.
    bool hasUnsavedEdits() const;
    void compileNow();
    void evaluateNow();
    void showSourceLine(int line);
    // Opens a run of the run store: its candidate in the editor, its result in Evaluation.
    bool openRunById(qint64 id);

Q_SIGNALS:
    void compiled(const dice::CompileResult& result);
    void evaluated(const dice::EvaluationResult& result);

protected:
    void changeEvent(QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void retranslate();
    // Whether the options line passes the allow-list; if not, says why in the status line.
    bool compilerOptionsValid();
    void showColourBands();
    void clearColourBands();
    void showResult(const CompileResult& result);
    void jumpToDiagnostic(const QModelIndex& index);
    void updateEvaluateButton();
    // The Counters tab: what the machine can do, and whether the editor holds a candidate for the
    // current task.
    void updateCounters();
    void collectCounters();
    void updateOccupancy();
    void runDisassembler();
    void showSass(const QString& tool, const QString& error, const SassText& text);
    void loadBaseline();
    // The options the editor's candidate is compiled with.
    CompileOptions compileOptions() const;
    // Compiles the baseline's candidate as the editor's is compiled, for Compare.
    void compileBaseline();
    void openRun(const RunRecord& run);
    QString compiledFileName() const;

    WorkbenchState* m_state;
    CodeEditor* m_editor;
    FindBar* m_findBar;
    QComboBox* m_arch;
    QLineEdit* m_compilerOptions;
    QCheckBox* m_colourBands;
    QSplitter* m_splitter = nullptr;
    bool m_splitterSized = false;
    QCheckBox* m_autoCompile;
    QPushButton* m_compile;
    QPushButton* m_evaluate;
    QLabel* m_status;
    QString m_filePath;
    QTabWidget* m_tabs;
    DiagnosticModel* m_diagnosticModel;
    QSortFilterProxyModel* m_sortedDiagnostics;
    QTreeView* m_diagnostics;
    CodeEditor* m_ptx;
    CodeEditor* m_sass;
    QTableWidget* m_resources;
    QCustomPlot* m_occupancy;
    QLabel* m_occupancyNote;
    EvaluationView* m_evaluationView;
    RunHistory* m_history;
    CompareView* m_compare;
    CountersView* m_counters;
    QString m_ncu; // Nsight Compute, found at start; empty where there is none
    int m_baselineCompiles = 0;
    QString m_compiledText;
    QTimer* m_debounce;
    QLabel* m_archLabel;
    QLabel* m_compilerOptionsLabel;
    CompileResult m_last;
    PtxLineMap m_ptxMap;
    std::vector<int> m_highlighted;
    int m_ptxMarker = -1;
    SassText m_sassText;
    std::vector<int> m_highlightedSass;
    int m_sassMarker = -1;
    int m_sourceMarker = -1;
    QString m_compiledName;
    QString m_compiledOptions; // the options line of the last compile
    bool m_haveResult = false;
};

} // namespace dice
