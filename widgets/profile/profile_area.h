// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTabWidget;
class QTableWidget;
class QTimer;
class QTreeWidget;
class QTreeWidgetItem;

namespace dice {

class CodeEditor;
class CompileService;
class WorkbenchState;

// Profile: compile a kernel on demand and after edits, with diagnostics in the editor and in a
// list, the PTX, and the resources each kernel uses.
class ProfileArea : public QWidget {
    Q_OBJECT
public:
    explicit ProfileArea(WorkbenchState* state, QWidget* parent = nullptr);

    CodeEditor* editor() const { return m_editor; }
    QTreeWidget* diagnosticsList() const { return m_diagnostics; }
    CompileService* compileService() const { return m_service; }
    const CompileResult& lastResult() const { return m_last; }

    void setSource(const QString& source);
    void compileNow();

Q_SIGNALS:
    void compiled(const dice::CompileResult& result);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void showResult(const CompileResult& result);
    void jumpToDiagnostic(QTreeWidgetItem* item);

    WorkbenchState* m_state;
    CompileService* m_service;
    CodeEditor* m_editor;
    QComboBox* m_arch;
    QCheckBox* m_autoCompile;
    QPushButton* m_compile;
    QPushButton* m_evaluate;
    QLabel* m_status;
    QTabWidget* m_tabs;
    QTreeWidget* m_diagnostics;
    CodeEditor* m_ptx;
    QTableWidget* m_resources;
    QTimer* m_debounce;
    QLabel* m_archLabel;
    CompileResult m_last;
    bool m_haveResult = false;
};

} // namespace dice
